package onnx

import (
	"encoding/binary"
	"math"
	"strconv"
)

// Versions written: ONNX's IR version 8 and operator set 17 with ai.onnx.ml
// 3, the newest that onnx 1.12 knows (Debian's python3-onnx); ONNX Runtime
// reads them all.
const (
	irVersion = 8
	opset     = 17
	mlOpset   = 3
	mlDomain  = "ai.onnx.ml"
)

// attr is one attribute of a node.
type attr struct {
	name    string
	kind    int
	f       float32
	i       int64
	s       string
	g       *graph
	floats  []float32
	ints    []int64
	strings []string
}

func aInt(name string, v int64) attr        { return attr{name: name, kind: attrTypeInt, i: v} }
func aInts(name string, v ...int64) attr    { return attr{name: name, kind: attrTypeInts, ints: v} }
func aFloat(name string, v float32) attr    { return attr{name: name, kind: attrTypeFloat, f: v} }
func aFloats(name string, v []float32) attr { return attr{name: name, kind: attrTypeFloats, floats: v} }
func aString(name, v string) attr           { return attr{name: name, kind: attrTypeString, s: v} }
func aStrings(name string, v []string) attr {
	return attr{name: name, kind: attrTypeStrings, strings: v}
}
func aGraph(name string, g *graph) attr { return attr{name: name, kind: attrTypeGraph, g: g} }

type node struct {
	op, domain string
	in, out    []string
	attrs      []attr
}

// dim is one dimension of a value's shape: a size, or a name (param) for a
// size known only when the graph runs (the rows, "N").
type dim struct {
	v     int64
	param string
}

// value declares a graph input, output or intermediate value.
type value struct {
	name string
	elem elemType
	dims []dim
	doc  string
}

// tensor is an initializer: raw little-endian values, or strings.
type tensor struct {
	name string
	elem elemType
	dims []int64
	raw  []byte
	strs []string
}

// graph is a graph being built: the model's, or a Loop's body, which
// shares the names of the graph it is in (ONNX's names are unique across
// a model's graphs).
type graph struct {
	name           string
	nodes          []node
	inits          []tensor
	inputs, output []value
	info           []value
	names          *namer
}

// namer hands out names unique in a model.
type namer struct {
	used map[string]bool
	ml   bool // an ai.onnx.ml operator is used
}

func newGraph(name string) *graph {
	return &graph{name: name, names: &namer{used: map[string]bool{}}}
}

// sub returns a new graph whose names are unique together with g's.
func (g *graph) sub(name string) *graph { return &graph{name: name, names: g.names} }

// reserve takes name as it is; it reports false when it is taken.
func (g *graph) reserve(name string) bool {
	if g.names.used[name] {
		return false
	}
	g.names.used[name] = true
	return true
}

// fresh returns an unused name made from hint.
func (g *graph) fresh(hint string) string {
	if g.reserve(hint) {
		return hint
	}
	for i := 1; ; i++ {
		if n := hint + "_" + strconv.Itoa(i); g.reserve(n) {
			return n
		}
	}
}

// add appends a node of the default domain with one output named from
// hint, and returns that output.
func (g *graph) add(op, hint string, in []string, attrs ...attr) string {
	out := g.fresh(hint)
	g.nodes = append(g.nodes, node{op: op, in: in, out: []string{out}, attrs: attrs})
	return out
}

// addML is add for an ai.onnx.ml operator with the given outputs.
func (g *graph) addML(op string, in, out []string, attrs ...attr) {
	g.names.ml = true
	g.nodes = append(g.nodes, node{op: op, domain: mlDomain, in: in, out: out, attrs: attrs})
}

// declare adds the type and shape of an intermediate value (value_info),
// for the checker's type inference where an operator's own inference says
// nothing (OneHotEncoder's in onnx 1.12).
func (g *graph) declare(v value) { g.info = append(g.info, v) }

func (g *graph) init(t tensor) string {
	t.name = g.fresh(t.name)
	g.inits = append(g.inits, t)
	return t.name
}

// f32 adds a float initializer of the given shape.
func (g *graph) f32(hint string, dims []int64, v []float32) string {
	raw := make([]byte, 0, 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	return g.init(tensor{name: hint, elem: tFloat, dims: dims, raw: raw})
}

// f64 adds a double initializer of the given shape.
func (g *graph) f64(hint string, dims []int64, v []float64) string {
	raw := make([]byte, 0, 8*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(x))
	}
	return g.init(tensor{name: hint, elem: tDouble, dims: dims, raw: raw})
}

// i64 adds an int64 initializer of the given shape.
func (g *graph) i64(hint string, dims []int64, v []int64) string {
	raw := make([]byte, 0, 8*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(x))
	}
	return g.init(tensor{name: hint, elem: tInt64, dims: dims, raw: raw})
}

// strs adds a string initializer of shape [len(v)].
func (g *graph) strs(hint string, v []string) string {
	return g.init(tensor{name: hint, elem: tString, dims: []int64{int64(len(v))}, strs: v})
}

// boolean adds a bool scalar initializer.
func (g *graph) boolean(hint string, v bool) string {
	raw := []byte{0}
	if v {
		raw[0] = 1
	}
	return g.init(tensor{name: hint, elem: tBool, raw: raw})
}

// scalar adds a float scalar (shape []) initializer.
func (g *graph) scalar(hint string, v float32) string { return g.f32(hint, nil, []float32{v}) }

// scalar64 adds a double scalar initializer.
func (g *graph) scalar64(hint string, v float64) string { return g.f64(hint, nil, []float64{v}) }

// axes adds the int64 vector initializer of a Reduce*, Slice, Squeeze or
// Reshape argument.
func (g *graph) axes(hint string, v ...int64) string { return g.i64(hint, []int64{int64(len(v))}, v) }

func (a attr) encode() *buf {
	p := &buf{}
	p.str(attrName, a.name)
	switch a.kind {
	case attrTypeFloat:
		p.key(attrF, 5)
		p.b = binary.LittleEndian.AppendUint32(p.b, math.Float32bits(a.f))
	case attrTypeInt:
		p.int(attrI, a.i)
	case attrTypeString:
		p.str(attrS, a.s)
	case attrTypeGraph:
		p.msg(attrG, a.g.encode())
	case attrTypeFloats:
		p.floats(attrFloats, a.floats)
	case attrTypeInts:
		p.ints(attrInts, a.ints)
	case attrTypeStrings:
		for _, s := range a.strings {
			p.str(attrStrings, s)
		}
	}
	p.int(attrType, int64(a.kind))
	return p
}

func (n *node) encode(name string) *buf {
	p := &buf{}
	for _, s := range n.in {
		p.str(nodeInput, s)
	}
	for _, s := range n.out {
		p.str(nodeOutput, s)
	}
	p.str(nodeName, name)
	p.str(nodeOpType, n.op)
	for _, a := range n.attrs {
		p.msg(nodeAttribute, a.encode())
	}
	if n.domain != "" {
		p.str(nodeDomain, n.domain)
	}
	return p
}

func (t *tensor) encode() *buf {
	p := &buf{}
	for _, d := range t.dims {
		p.int(tensorDims, d)
	}
	p.int(tensorDataType, int64(t.elem))
	for _, s := range t.strs {
		p.str(tensorStringData, s)
	}
	p.str(tensorName, t.name)
	if t.elem != tString {
		p.bytes(tensorRawData, t.raw)
	}
	return p
}

func (v *value) encode() *buf {
	shape := &buf{}
	for _, d := range v.dims {
		e := &buf{}
		if d.param != "" {
			e.str(dimParam, d.param)
		} else {
			e.int(dimValue, d.v)
		}
		shape.msg(shapeDim, e)
	}
	tt := &buf{}
	tt.int(tensorElemType, int64(v.elem))
	tt.msg(tensorShape, shape)
	typ := &buf{}
	typ.msg(typeTensor, tt)
	p := &buf{}
	p.str(valueName, v.name)
	p.msg(valueType, typ)
	if v.doc != "" {
		p.str(valueDocString, v.doc)
	}
	return p
}

func (g *graph) encode() *buf {
	p := &buf{}
	for i := range g.nodes {
		n := &g.nodes[i]
		p.msg(graphNode, n.encode(g.name+"/"+strconv.Itoa(i)+"_"+n.op))
	}
	p.str(graphName, g.name)
	for i := range g.inits {
		p.msg(graphInitializer, g.inits[i].encode())
	}
	for i := range g.inputs {
		p.msg(graphInput, g.inputs[i].encode())
	}
	for i := range g.output {
		p.msg(graphOutput, g.output[i].encode())
	}
	for i := range g.info {
		p.msg(graphValueInfo, g.info[i].encode())
	}
	return p
}

// encodeModel returns the ModelProto of the graph g with the model's doc
// string and metadata (key, value pairs).
func encodeModel(g *graph, doc string, meta [][2]string) []byte {
	p := &buf{}
	p.int(modelIRVersion, irVersion)
	p.str(modelProducerName, "nsvm")
	p.str(modelProducerVersion, producerVersion)
	p.str(modelDocString, doc)
	p.msg(modelGraph, g.encode())
	imp := &buf{}
	imp.str(opsetDomain, "")
	imp.int(opsetVersion, opset)
	p.msg(modelOpsetImport, imp)
	if g.names.ml {
		imp := &buf{}
		imp.str(opsetDomain, mlDomain)
		imp.int(opsetVersion, mlOpset)
		p.msg(modelOpsetImport, imp)
	}
	for _, kv := range meta {
		e := &buf{}
		e.str(entryKey, kv[0])
		e.str(entryValue, kv[1])
		p.msg(modelMetadataProps, e)
	}
	return p.b
}
