package onnx

import (
	"encoding/binary"
	"math"
)

// The protocol buffer wire format of the ONNX messages written here
// (onnx.proto, IR version 8): each field is a key, (field number << 3) |
// wire type, then a varint (type 0), eight bytes (1), a length and as many
// bytes (2) or four bytes (5). Repeated numbers are written packed (one
// length-delimited field), which every protobuf parser reads.

const (
	wireVarint = 0
	wireBytes  = 2
)

// buf is a protocol buffer message being written.
type buf struct{ b []byte }

func (p *buf) key(field, wire int) { p.b = binary.AppendUvarint(p.b, uint64(field)<<3|uint64(wire)) }

// int writes an integer field (int32, int64 or an enum: negative values
// as their two's complement, as protobuf does).
func (p *buf) int(field int, v int64) {
	p.key(field, wireVarint)
	p.b = binary.AppendUvarint(p.b, uint64(v))
}

// bytes writes a length-delimited field.
func (p *buf) bytes(field int, b []byte) {
	p.key(field, wireBytes)
	p.b = binary.AppendUvarint(p.b, uint64(len(b)))
	p.b = append(p.b, b...)
}

func (p *buf) str(field int, s string) {
	p.key(field, wireBytes)
	p.b = binary.AppendUvarint(p.b, uint64(len(s)))
	p.b = append(p.b, s...)
}

// msg writes a nested message.
func (p *buf) msg(field int, m *buf) { p.bytes(field, m.b) }

// ints writes a packed repeated integer field.
func (p *buf) ints(field int, v []int64) {
	var q []byte
	for _, x := range v {
		q = binary.AppendUvarint(q, uint64(x))
	}
	p.bytes(field, q)
}

// floats writes a packed repeated float field.
func (p *buf) floats(field int, v []float32) {
	q := make([]byte, 0, 4*len(v))
	for _, x := range v {
		q = binary.LittleEndian.AppendUint32(q, math.Float32bits(x))
	}
	p.bytes(field, q)
}

// Field numbers of onnx.proto.
const (
	// ModelProto
	modelIRVersion       = 1
	modelProducerName    = 2
	modelProducerVersion = 3
	modelDocString       = 6
	modelGraph           = 7
	modelOpsetImport     = 8
	modelMetadataProps   = 14

	// OperatorSetIdProto, StringStringEntryProto
	opsetDomain  = 1
	opsetVersion = 2
	entryKey     = 1
	entryValue   = 2

	// GraphProto
	graphNode        = 1
	graphName        = 2
	graphInitializer = 5
	graphInput       = 11
	graphOutput      = 12
	graphValueInfo   = 13

	// NodeProto
	nodeInput     = 1
	nodeOutput    = 2
	nodeName      = 3
	nodeOpType    = 4
	nodeAttribute = 5
	nodeDomain    = 7

	// AttributeProto
	attrName    = 1
	attrF       = 2
	attrI       = 3
	attrS       = 4
	attrG       = 6
	attrFloats  = 7
	attrInts    = 8
	attrStrings = 9
	attrType    = 20

	// TensorProto
	tensorDims       = 1
	tensorDataType   = 2
	tensorStringData = 6
	tensorName       = 8
	tensorRawData    = 9

	// ValueInfoProto, TypeProto, TypeProto.Tensor, TensorShapeProto and its
	// Dimension
	valueName      = 1
	valueType      = 2
	typeTensor     = 1
	tensorElemType = 1
	tensorShape    = 2
	shapeDim       = 1
	dimValue       = 1
	dimParam       = 2
	valueDocString = 3
)

// AttributeProto.AttributeType.
const (
	attrTypeFloat   = 1
	attrTypeInt     = 2
	attrTypeString  = 3
	attrTypeGraph   = 5
	attrTypeFloats  = 6
	attrTypeInts    = 7
	attrTypeStrings = 8
)

// elemType is TensorProto.DataType.
type elemType int

const (
	tFloat  elemType = 1
	tInt64  elemType = 7
	tString elemType = 8
	tBool   elemType = 9
	tDouble elemType = 11
)
