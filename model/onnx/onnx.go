package onnx

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// Operators names how the SVM heads are written (Options.Operators).
type Operators string

const (
	// Standard writes the heads with ONNX's standard operators, in
	// float64: the kernel rows of a batch as one MatMul against the
	// support vectors (the distances of an RBF kernel as ‖x‖² + ‖s‖² −
	// 2x·s), the expansions as one Gemm, the vote and the calibration
	// written out. It runs on every execution provider that has the
	// operators in float64 (ONNX Runtime's CPU, in Node and WebAssembly).
	Standard Operators = "standard"
	// ML writes the kernel expansions with ai.onnx.ml's SVMClassifier
	// (one-vs-one heads, in LIBSVM's layout), SVMRegressor (every other
	// head with support vectors) and LinearRegressor (linear kernels): a
	// graph of fewer nodes, in float32 (the RBF distances subtracted
	// first), that ONNX Runtime runs on the CPU only. The network, the
	// vote and the calibration are standard operators all the same.
	// Normalized kernels have no ai.onnx.ml form.
	ML Operators = "ml"
)

// Options configures Write; the zero value (or nil) writes standard
// operators.
type Options struct {
	// Operators is Standard (also "") or ML.
	Operators Operators
}

// Validate reports whether the options are known.
func (o *Options) Validate() error {
	switch o.Operators {
	case "", Standard, ML:
		return nil
	}
	return fmt.Errorf("nsvm: unknown ONNX operators %q (want standard or ml)", o.Operators)
}

// producerVersion is the ModelProto's producer_version: the version of
// the nsvm model files the graph is made from.
const producerVersion = model.FormatVersion

// maxBytes bounds the ONNX file: protobuf messages are limited to 2 GB.
const maxBytes = math.MaxInt32

// Write writes m to w as an ONNX model (see the package documentation
// for its inputs and outputs). opt may be nil. A model ONNX cannot hold
// (rows of kernel values, a graph over 2 GB) is refused with an error
// that wraps model.ErrNotExportable.
func Write(w io.Writer, m *model.Model, opt *Options) error {
	b, err := Marshal(m, opt)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal returns the bytes Write writes.
func Marshal(m *model.Model, opt *Options) ([]byte, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Operators == "" {
		o.Operators = Standard
	}
	if err := exportable(m); err != nil {
		return nil, err
	}
	b := &builder{g: newGraph("nsvm"), m: m, ops: o.Operators}
	for _, name := range b.outputNames() {
		b.g.reserve(name)
	}
	x, err := b.inputs()
	if err != nil {
		return nil, err
	}
	z, err := b.features(b.scale(b.views(x)))
	if err != nil {
		return nil, err
	}
	z = b.meanOverViews(z)
	dec, err := b.heads(z)
	if err != nil {
		return nil, err
	}
	if err := b.outputs(dec); err != nil {
		return nil, err
	}
	if b.size > maxBytes {
		return nil, notExportable("its ONNX graph would hold %d MB of values, over protobuf's 2 GB limit", b.size>>20)
	}
	out := encodeModel(b.g, b.doc(), b.metadata())
	if len(out) > maxBytes {
		return nil, notExportable("its ONNX graph would take %d MB, over protobuf's 2 GB limit", len(out)>>20)
	}
	return out, nil
}

// exportError is a model ONNX cannot hold; it wraps
// model.ErrNotExportable.
type exportError struct{ msg string }

func (e *exportError) Error() string { return "nsvm: cannot export the model to ONNX: " + e.msg }
func (e *exportError) Unwrap() error { return model.ErrNotExportable }

func notExportable(format string, args ...any) error {
	return &exportError{msg: fmt.Sprintf(format, args...)}
}

// exportable refuses models ONNX cannot hold.
func exportable(m *model.Model) error {
	switch {
	case m.Head == nil:
		return notExportable("the model has no SVM head")
	case m.Precomputed():
		return notExportable("it takes rows of kernel values (a precomputed kernel), and ONNX has no kernel to compute them with; train on the features instead (--kernel rbf, linear, poly or sigmoid)")
	}
	if m.Regression() || m.OneClass() {
		return nil
	}
	for _, v := range m.Labels() {
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return notExportable("its class label %g is not an integer, which ONNX's int64 labels need", v)
		}
	}
	return nil
}

// builder builds the graph of one model.
type builder struct {
	g    *graph
	m    *model.Model
	ops  Operators
	size int64 // bytes of initializers and attributes so far
}

// rows is the first dimension of every input and output: the rows of a
// batch, known when the graph runs.
var rows = dim{param: "N"}

// heads returns the model's binary heads (one for a binary model, a
// regressor or a one-class model).
func (b *builder) headList() []*svm.Model {
	if b.m.Multiclass() {
		return b.m.Heads
	}
	return []*svm.Model{b.m.Head}
}

// outputNames are the names of the graph's outputs for the model.
func (b *builder) outputNames() []string {
	switch {
	case b.m.Regression():
		return []string{"value"}
	case b.m.Calibrated():
		return []string{"label", "scores", "probabilities"}
	}
	return []string{"label", "scores"}
}

// perColumn reports whether the model takes one input per CSV column: it
// was trained on columns of text (categorical, or left out).
func perColumn(cols []data.Column) bool {
	for _, c := range cols {
		if c.Categories != nil || c.Dropped || c.Dates != "" {
			return true
		}
	}
	return false
}

// columnName is the name of the input of CSV column k: its header's
// name, or x1, x2, … by position without a header.
func columnName(c data.Column, k int) string {
	if c.Name != "" {
		return c.Name
	}
	return "x" + strconv.Itoa(k+1)
}

// inputs declares the graph's inputs and returns the rows as the model's
// readers make them: [N, InSize] float.
func (b *builder) inputs() (string, error) {
	m, g := b.m, b.g
	if !perColumn(m.Columns) {
		g.reserve("X")
		g.inputs = append(g.inputs, value{name: "X", elem: tFloat, dims: []dim{rows, {v: int64(m.InSize())}},
			doc: "rows of the model's inputs, as nsvm's readers produce them (nsvm data convert)"})
		var fill []float32
		for j, c := range m.Columns {
			if c.Fill != nil {
				if fill == nil {
					fill = make([]float32, len(m.Columns))
					for i := range fill {
						fill[i] = float32(math.NaN())
					}
				}
				fill[j] = float32(*c.Fill)
			}
		}
		if fill == nil {
			return "X", nil
		}
		f := g.f32("fill", []int64{int64(len(fill))}, fill)
		return g.add("Where", "X_filled", []string{g.add("IsNaN", "X_missing", []string{"X"}), f, "X"}), nil
	}
	var parts []string
	for k, c := range m.Columns {
		if c.Dropped || c.Categories != nil && len(c.Categories) == 0 && !c.Other {
			continue
		}
		name := columnName(c, k)
		if !g.reserve(name) {
			return "", notExportable("two of its CSV columns, or a column and an output, are named %s", data.Quote(name))
		}
		if c.Dates != "" {
			// The graph parses no text: the features of the dates come
			// computed, as nsvm's readers compute them.
			g.inputs = append(g.inputs, value{name: name, elem: tFloat, dims: []dim{rows, {v: data.DateWidth}},
				doc: "dates (" + c.Dates + ") as " + strings.Join(data.DateFeatures[:], ", ") + " (UTC)"})
			x := name
			if c.DateFill != nil {
				fill := make([]float32, data.DateWidth)
				for i, v := range c.DateFill {
					fill[i] = float32(v)
				}
				x = g.add("Where", name+"_filled", []string{g.add("IsNaN", name+"_missing", []string{name}),
					g.f32(name+"_fill", []int64{data.DateWidth}, fill), name})
			}
			parts = append(parts, x)
			continue
		}
		if c.Categories == nil {
			g.inputs = append(g.inputs, value{name: name, elem: tFloat, dims: []dim{rows, {v: 1}}, doc: "numbers"})
			x := name
			if c.Fill != nil {
				x = g.add("Where", name+"_filled", []string{g.add("IsNaN", name+"_missing", []string{name}),
					g.scalar(name+"_fill", float32(*c.Fill)), name})
			}
			parts = append(parts, x)
			continue
		}
		g.inputs = append(g.inputs, value{name: name, elem: tString, dims: []dim{rows, {v: 1}}, doc: "categories"})
		n := int64(len(c.Categories))
		var hot string
		if n > 0 {
			oh := g.fresh(name + "_onehot3")
			g.addML("OneHotEncoder", []string{name}, []string{oh}, aStrings("cats_strings", c.Categories), aInt("zeros", 1))
			g.declare(value{name: oh, elem: tFloat, dims: []dim{rows, {v: 1}, {v: n}}})
			hot = g.add("Reshape", name+"_onehot", []string{oh, g.axes("shape", -1, n)})
			for _, s := range c.Categories {
				b.size += int64(len(s))
			}
		}
		if c.Other {
			// The feature of every category not kept: 1 − the others.
			if hot == "" {
				hot = g.add("Expand", name+"_other", []string{g.f32("ones", []int64{1, 1}, []float32{1}), g.add("Shape", name+"_shape", []string{name})})
			} else {
				sum := g.add("ReduceSum", name+"_known", []string{hot, g.axes("axes", 1)}, aInt("keepdims", 1))
				other := g.add("Sub", name+"_other", []string{g.scalar("one", 1), sum})
				hot = g.add("Concat", name+"_onehot_other", []string{hot, other}, aInt("axis", 1))
			}
		}
		parts = append(parts, hot)
	}
	if len(parts) == 0 {
		return "", notExportable("none of its CSV columns is used")
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return g.add("Concat", "X", parts, aInt("axis", 1)), nil
}

// scale applies the model's input standardisation, (x − mean)/std, to
// the rows x.
func (b *builder) scale(x string) string {
	m, g := b.m, b.g
	if m.Mean == nil {
		return x
	}
	global := true
	for j := range m.Mean {
		global = global && m.Mean[j] == m.Mean[0] && m.Std[j] == m.Std[0]
	}
	var mean, std string
	if global {
		mean, std = g.scalar("input_mean", float32(m.Mean[0])), g.scalar("input_std", float32(m.Std[0]))
	} else {
		mu, sd := make([]float32, len(m.Mean)), make([]float32, len(m.Std))
		for j := range mu {
			mu[j], sd[j] = float32(m.Mean[j]), float32(m.Std[j])
		}
		d := []int64{int64(len(mu))}
		mean, std = g.f32("input_mean", d, mu), g.f32("input_std", d, sd)
		b.size += 8 * int64(len(mu))
	}
	return g.add("Div", "scaled", []string{g.add("Sub", "centred", []string{x, mean}), std})
}

// views returns the rows x ([N, InSize]) of a model with TestShift s as
// the (2s+1)² copies of its images moved by −s..s pixels along each axis,
// the uncovered border zero: [(2s+1)²·N, InSize], the N rows of one move
// together, the moves in the model's order (dy, then dx). Without
// TestShift it returns x.
func (b *builder) views(x string) string {
	s := int64(b.m.TestShift)
	if s == 0 {
		return x
	}
	g, sh := b.g, b.m.Net.InShape()
	c, h, w := int64(sh[0]), int64(sh[1]), int64(sh[2])
	img := g.add("Reshape", "view_image", []string{x, g.axes("view_image_shape", -1, c, h, w)})
	padded := g.add("Pad", "view_padded", []string{img, g.i64("view_pads", []int64{8}, []int64{0, 0, s, s, 0, 0, s, s})})
	hw := g.axes("view_axes", 2, 3)
	var moved []string
	for dy := -s; dy <= s; dy++ {
		for dx := -s; dx <= s; dx++ {
			// out(i, j) = in(i − dy, j − dx) = padded(i − dy + s, j − dx + s).
			start := g.axes("view_start", s-dy, s-dx)
			end := g.axes("view_end", s-dy+h, s-dx+w)
			moved = append(moved, g.add("Slice", "view_moved", []string{padded, start, end, hw}))
		}
	}
	all := g.add("Concat", "views", moved, aInt("axis", 0))
	return g.add("Reshape", "view_rows", []string{all, g.axes("view_rows_shape", -1, c*h*w)})
}

// meanOverViews returns the mean of the features z of views' copies
// ([(2s+1)²·N, OutSize]) over the copies of each row: [N, OutSize]. Without
// TestShift it returns z.
func (b *builder) meanOverViews(z string) string {
	s := int64(b.m.TestShift)
	if s == 0 {
		return z
	}
	g := b.g
	per := g.add("Reshape", "view_features", []string{z, g.axes("view_features_shape", (2*s+1)*(2*s+1), -1, int64(b.m.OutSize()))})
	return g.add("ReduceMean", "features", []string{per}, aInts("axes", 0), aInt("keepdims", 0))
}

// doc is the model's doc_string: what it takes and gives.
func (b *builder) doc() string {
	m := b.m
	what := "an SVM"
	if m.Net != nil {
		what = "an NSVM (a network " + strconv.Quote(m.Net.Spec()) + " followed by an SVM)"
	}
	kind := "classifier"
	switch {
	case m.Regression():
		kind = "regressor"
	case m.OneClass():
		kind = "one-class model"
	case m.Multiclass():
		kind = fmt.Sprintf("classifier of %d classes (%s)", len(m.Classes), m.Scheme)
	}
	return fmt.Sprintf("nsvm %s: %s, kernel %s; outputs %v", kind, what, m.Head.Kernel, b.outputNames())
}

// metadata is the model's metadata_props: the task, the classes' names and
// the names of the columns of scores.
func (b *builder) metadata() [][2]string {
	m := b.m
	task := "classification"
	switch {
	case m.Regression():
		task = "regression"
	case m.OneClass():
		task = "one-class"
	}
	meta := [][2]string{{"nsvm_task", task}, {"nsvm_algorithm", m.Algorithm}, {"nsvm_kernel", kernelString(m.Head.Kernel)}}
	if !m.Regression() {
		classes, _ := json.Marshal(m.ClassNames())
		meta = append(meta, [2]string{"nsvm_classes", string(classes)})
		cols, _ := json.Marshal(b.scoreColumns())
		meta = append(meta, [2]string{"nsvm_scores", string(cols)})
	}
	return meta
}

func kernelString(s kernel.Spec) string { return s.String() }

// scoreColumns names the columns of the scores output, as nsvm predict
// --decision-values --out-header names them.
func (b *builder) scoreColumns() []string {
	m := b.m
	if !m.Multiclass() {
		return []string{"decision"}
	}
	names := m.ClassNames()
	var cols []string
	if m.Scheme == model.OneVsOne {
		for q := range m.NumHeads() {
			a, c := svm.PairClasses(q, len(names))
			cols = append(cols, "decision("+names[a]+","+names[c]+")")
		}
		return cols
	}
	for _, n := range names {
		cols = append(cols, "decision("+n+")")
	}
	return cols
}
