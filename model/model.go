package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/countio"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// FormatVersion is written into every model file's metadata.
const FormatVersion = "nsvm/1"

// Model is a trained NSVM: g(x) = h(F_Θ(s(x))), where s standardises the
// input (when Mean and Std are set), F_Θ is the network and h is the kernel
// expansion Head on feature space, h(z) = Σ_s Coef_s·K(SV_s, z) + Bias.
// For Algorithms 1–3, Coef_s = α_s·y_s/(λT), and Bias = 0 unless
// Config.Bias asked for a bias term.
//
// A Model without a network (Net == nil) is a classical SVM on the
// (standardised) inputs; the command line stores every model this way so that
// one file format serves all.
type Model struct {
	// Algorithm names the trainer: "nsvm1" … "nsvm4", or a solver of package
	// svm ("smo", "pegasos", …).
	Algorithm string
	// Task is Classification (also "") or Regression: a regressor's
	// Decision, Predict and PredictBatch return the regression function.
	Task      string
	Net       *nn.Net
	Head      *svm.Model
	Mean, Std []float64 // per-input standardisation; nil for none
	Info      map[string]string

	// TestShift, if > 0, makes the features of an image the mean of
	// F_Θ(s(·)) over the (2·TestShift+1)² copies of the image moved by
	// every whole number of pixels in −TestShift..TestShift along each
	// axis, the uncovered border zero (nn.ShiftImages): the shifts of
	// Part I's augmentation, averaged at prediction. Only a network on
	// images (an input shape C×H×W) has it; at most MaxTestShift.
	TestShift int

	// A multiclass model (see TrainMulticlass and SetHeads) has the class
	// labels in Classes (increasing), the binary heads in Heads and their
	// arrangement in Scheme (OneVsRest or OneVsOne); Head is Heads[0].
	// Binary models leave these empty.
	Classes []float64
	Heads   []*svm.Model
	Scheme  string

	// Platt, if not nil, calibrates decision values into probabilities
	// (see FitProbability and Probabilities).
	Platt *svm.Platt
	// Sigmoids, if not nil, calibrates each head's decision values with a
	// sigmoid of its own (LIBSVM's probA and probB of a model svm-train
	// wrote with -b 1), instead of Platt.
	Sigmoids []svm.Platt

	// libsvmLabels is the order of the classes (Labels()) in the LIBSVM
	// file the model was read from: svm-predict's "labels" order; nil for
	// the classes' own order.
	libsvmLabels []int

	// LabelNames, if not nil, names the classes of a model trained on data
	// with named labels (data.Dataset.LabelNames): a class label v stands
	// for LabelNames[v]. See LabelName and DataLabels.
	LabelNames []string

	// Columns, if not nil, are the CSV columns of a model trained on data
	// with categorical (text) columns or columns of dates
	// (data.Dataset.Columns): the inputs are their one-hot encoding and
	// the features of the dates. Read data for the model with
	// data.CSVOptions.Columns = Columns, or encode a row with
	// data.EncodeRow.
	Columns []data.Column

	// LabelColumn, if not "", is the header name of the label column of
	// the CSV file the model was trained on: in a file read for the model,
	// a column of this name holds labels; without one the rows are
	// unlabelled.
	LabelColumn string

	// Selection, if not nil, records how Fit chose the model: the
	// validation protocol and every candidate's score. It is saved with the
	// model.
	Selection *Selection

	// Unchecked is set by Load and Read for an nsvm model file without a
	// checksum (written before model files carried one, or by another
	// program): nothing could verify that its contents are as saved.
	// Callers may say so; saving the model again adds the checksum.
	Unchecked bool

	bufs sync.Pool // *featureBufs: the buffers of a Features call
	// group caches the evaluation of Heads over their distinct support
	// vectors (see headGroup).
	group atomic.Pointer[heads]
}

// InSize is the number of input values per point.
func (m *Model) InSize() int {
	if m.Net == nil {
		return m.Head.D
	}
	return m.Net.InSize()
}

// OutSize is the size of the feature vectors the head sees.
func (m *Model) OutSize() int { return m.Head.D }

// standardize writes the standardised rows of x into dst.
func (m *Model) standardize(dst, x []float32) {
	copy(dst, x)
	if m.Mean == nil {
		return
	}
	d := len(m.Mean)
	for i := range dst {
		j := i % d
		dst[i] = float32((float64(dst[i]) - m.Mean[j]) / m.Std[j])
	}
}

// ScaleInputs sets dst to the rows of x scaled as the model scales its
// inputs (by Mean and Std; a copy when it has none): what its network, or
// a classical model's head, sees.
func (m *Model) ScaleInputs(dst, x []float32) {
	if len(dst) != len(x) {
		panic("nsvm: ScaleInputs: slice lengths differ")
	}
	m.standardize(dst, x)
}

// Features sets dst (rows×OutSize) to F_Θ of the standardised rows of x
// (with TestShift, its mean over the moved images).
// Like every prediction method of Model, it is safe for concurrent use and
// takes no lock: each call works in its own buffers, and the result of a
// call depends only on its arguments. A model must not be changed while it
// predicts.
func (m *Model) Features(dst, x []float32, rows int) {
	if len(x) != rows*m.InSize() || len(dst) != rows*m.OutSize() {
		panic("nsvm: Features: slice lengths do not match rows")
	}
	if m.Net == nil {
		m.standardize(dst, x)
		return
	}
	if m.Mean == nil && m.TestShift == 0 {
		m.Net.Features(dst, x, rows)
		return
	}
	if err := m.CheckTestShift(); err != nil {
		panic(err)
	}
	// The rows are standardised (and moved) a block at a time, so that
	// predicting on a large data set does not hold a standardised copy of
	// all of it (a row's features do not depend on the rows computed with
	// it).
	d, out := m.InSize(), m.OutSize()
	block := max(1, min(rows, featuresBlockFloats/max(1, d)))
	bp, _ := m.bufs.Get().(*featureBufs)
	if bp == nil {
		bp = new(featureBufs)
	}
	for lo := 0; lo < rows; lo += block {
		hi := min(rows, lo+block)
		if m.TestShift == 0 {
			m.netFeatures(dst[lo*out:hi*out], x[lo*d:hi*d], hi-lo, bp)
		} else {
			m.shiftedFeatures(dst[lo*out:hi*out], x[lo*d:hi*d], hi-lo, bp)
		}
	}
	m.bufs.Put(bp)
}

// netFeatures sets z to the network's features of the rows x, standardised
// into bp.scaled first when m has a standardisation.
func (m *Model) netFeatures(z, x []float32, rows int, bp *featureBufs) {
	if m.Mean != nil {
		bp.scaled = vec.Resize(bp.scaled, len(x))
		m.standardize(bp.scaled, x)
		x = bp.scaled
	}
	m.Net.Features(z, x, rows)
}

// MaxTestShift bounds Model.TestShift: 25 views of an image.
const MaxTestShift = 2

// CheckTestShift reports whether m's TestShift is one it can predict with:
// 0, or 1 to MaxTestShift for a network on images of more than
// 2·TestShift pixels a side.
func (m *Model) CheckTestShift() error {
	if m.TestShift == 0 {
		return nil
	}
	var shape []int
	if m.Net != nil {
		shape = m.Net.InShape()
	}
	if err := CheckTestShiftShape(shape, m.TestShift); err != nil {
		return fmt.Errorf("nsvm: TestShift %d: %w", m.TestShift, errmsg.Strip(err))
	}
	return nil
}

// CheckTestShiftShape reports whether a network on inputs of the shape can
// average its features over the moves of up to s pixels (Model.TestShift
// s > 0): images (C×H×W) of more than 2·s pixels a side, s at most
// MaxTestShift.
func CheckTestShiftShape(shape []int, s int) error {
	if s < 0 || s > MaxTestShift {
		return fmt.Errorf("nsvm: test-time shifts of %d pixels are not in 0..%d", s, MaxTestShift)
	}
	if len(shape) != 3 {
		return fmt.Errorf("nsvm: test-time shifts need a network on images (an input shape C×H×W)")
	}
	if min(shape[1], shape[2]) <= 2*s {
		return fmt.Errorf("nsvm: test-time shifts of %d pixel(s) need images of more than %d pixels a side, not %d×%d", s, 2*s, shape[1], shape[2])
	}
	return nil
}

// featureBufs are the buffers of a Features call: the standardised rows of
// a block, and with TestShift the block moved and its features.
type featureBufs struct{ scaled, moved, z []float32 }

// shiftedFeatures sets dst (rows×OutSize) to the mean of the network's
// features over the TestShift moves of the images x, summed in a fixed
// order (the moves row by row, dy then dx). An image moves as given, its
// uncovered border zero (black), and is standardised after. Features
// checked the TestShift.
func (m *Model) shiftedFeatures(dst, x []float32, rows int, bp *featureBufs) {
	sh, s := m.Net.InShape(), m.TestShift
	bp.moved = vec.Resize(bp.moved, len(x))
	bp.z = vec.Resize(bp.z, len(dst))
	clear(dst)
	for dy := -s; dy <= s; dy++ {
		for dx := -s; dx <= s; dx++ {
			nn.ShiftImages(bp.moved, x, rows, sh[0], sh[1], sh[2], dy, dx, nil)
			m.netFeatures(bp.z, bp.moved, rows, bp)
			vec.Axpy(1, bp.z, dst)
		}
	}
	v := float32((2*s + 1) * (2*s + 1))
	for i := range dst {
		dst[i] /= v
	}
}

// featuresBlockFloats bounds the standardised inputs Features holds at once:
// 16 MB, thousands of rows for the network's workers to share.
const featuresBlockFloats = 4 << 20

// DecisionBatch sets dst[i] = g(x_i) for the rows of x.
func (m *Model) DecisionBatch(dst []float64, x []float32, rows int) {
	z := make([]float32, rows*m.OutSize())
	m.Features(z, x, rows)
	m.Head.DecisionBatch(dst, z, rows)
}

// Decision returns g(x) for one point of InSize() values; a row of
// another length is a programming error (a panic that says so); rows from
// a file go through PredictDataset, which returns an error instead.
func (m *Model) Decision(x []float32) float64 {
	m.checkRow("Decision", x)
	var d [1]float64
	m.DecisionBatch(d[:], x, 1)
	return d[0]
}

// Predict returns the class label of x: Head.Pos when g(x) ≥ 0, else
// Head.Neg; for a multiclass model, the class PredictBatch gives; for a
// regressor, g(x).
func (m *Model) Predict(x []float32) float64 {
	m.checkRow("Predict", x)
	if m.Regression() {
		return m.Decision(x)
	}
	if m.Multiclass() {
		var c [1]float64
		m.PredictBatch(c[:], x, 1)
		return c[0]
	}
	if m.Decision(x) >= 0 {
		return m.Head.Pos
	}
	return m.Head.Neg
}

// checkRow panics with a message naming the method when x is not one row
// of the model's inputs.
func (m *Model) checkRow(method string, x []float32) {
	if len(x) != m.InSize() {
		panic(fmt.Sprintf("nsvm: Model.%s: the row has %d values, the model takes %d", method, len(x), m.InSize()))
	}
}

// Save writes the model to path in the safetensors layout with a checksum
// (see doc.go), through a temporary file and a rename, so that a failed
// write never leaves a partial model behind (a symbolic link is followed
// and the file's mode kept; a device or pipe is written in place).
func (m *Model) Save(path string) error {
	meta, ts, err := m.encode()
	if err != nil {
		return err
	}
	return safetensors.WriteFile(path, meta, ts)
}

// WriteTo writes the model file Save writes to w: the same bytes.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	meta, ts, err := m.encode()
	if err != nil {
		return 0, err
	}
	cw := &countio.Writer{W: w}
	err = safetensors.WriteChecksummed(cw, meta, ts)
	return cw.N, err
}

func (m *Model) encode() (map[string]string, []safetensors.Tensor, error) {
	h := m.Head
	ks, err := json.Marshal(h.Kernel)
	if err != nil {
		return nil, nil, err
	}
	arch, inShape := "", []int{h.D}
	if m.Net != nil {
		arch, inShape = m.Net.Spec(), m.Net.InShape()
	}
	shape, _ := json.Marshal(inShape)
	meta := map[string]string{
		"format":    FormatVersion,
		"algorithm": m.Algorithm,
		"arch":      arch,
		"in_shape":  string(shape),
		"kernel":    string(ks),
		"bias":      strconv.FormatFloat(h.Bias, 'g', -1, 64),
		"label_neg": strconv.FormatFloat(h.Neg, 'g', -1, 64),
		"label_pos": strconv.FormatFloat(h.Pos, 'g', -1, 64),
	}
	for k, v := range m.Info {
		if _, taken := meta[k]; !taken {
			meta[k] = v
		}
	}
	var ts []safetensors.Tensor
	if m.Net != nil {
		for _, p := range m.Net.Params() {
			ts = append(ts, safetensors.F32("theta."+p.Name, p.Shape, p.Torch()))
		}
	}
	if m.Platt != nil {
		meta["platt_a"] = strconv.FormatFloat(m.Platt.A, 'g', -1, 64)
	}
	if m.Sigmoids != nil {
		ab := make([]float64, 0, 2*len(m.Sigmoids))
		for _, sg := range m.Sigmoids {
			ab = append(ab, sg.A, sg.B)
		}
		ts = append(ts, safetensors.F64("head_sigmoids", []int{len(m.Sigmoids), 2}, ab))
	}
	if m.libsvmLabels != nil {
		order, _ := json.Marshal(m.libsvmLabels)
		meta["libsvm_label_order"] = string(order)
	}
	if m.Task == Regression {
		meta["task"] = Regression
	}
	if m.TestShift != 0 {
		if err := m.CheckTestShift(); err != nil {
			return nil, nil, err
		}
		meta["test_shift"] = strconv.Itoa(m.TestShift)
	}
	if m.Columns != nil {
		cols, err := json.Marshal(m.Columns)
		if err != nil {
			return nil, nil, err
		}
		meta["input_columns"] = string(cols)
	}
	if m.LabelColumn != "" {
		meta["label_column"] = m.LabelColumn
	}
	if m.LabelNames != nil {
		names, err := json.Marshal(m.LabelNames)
		if err != nil {
			return nil, nil, err
		}
		meta["label_names"] = string(names)
	}
	if m.Selection != nil {
		sel, err := json.Marshal(m.Selection)
		if err != nil {
			return nil, nil, err
		}
		meta["selection"] = string(sel)
	}
	if m.Multiclass() {
		ts = m.encodeHeads(meta, ts)
	} else {
		ts = h.EncodeSupport(ts, "")
	}
	if m.Mean != nil {
		ts = append(ts,
			safetensors.F64("input_mean", []int{len(m.Mean)}, m.Mean),
			safetensors.F64("input_std", []int{len(m.Std)}, m.Std))
	}
	return meta, ts, nil
}

// Load reads a model written by Save.
//
// A LIBSVM model file (svm-train's) is recognised by its content and read
// with ReadLIBSVMModel. The file must be a regular file (a device or a pipe
// has no size to bound the reading by; Read takes a stream).
func Load(path string) (*Model, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("nsvm: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("nsvm: %s is not a regular file (%s); a model file is read from one", path, fileKind(st.Mode()))
	}
	if head, err := readHead(path, 64); err == nil && isLIBSVMModel(head) {
		return loadLIBSVMModel(path)
	}
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, corrupt(path, err)
	}
	m, err := decode(f)
	if err != nil {
		return nil, fmt.Errorf("nsvm: %s: %w", path, errmsg.Strip(err))
	}
	return m, nil
}

// corrupt words a checksum mismatch of a model file read from path ("" for
// a reader) as such; other errors are returned as they are.
func corrupt(path string, err error) error {
	if !errors.Is(err, safetensors.ErrChecksum) {
		return fmt.Errorf("nsvm: %w", err) // safetensors' names the file
	}
	if path == "" {
		return fmt.Errorf("nsvm: the model file is corrupt: %w", safetensors.ErrChecksum)
	}
	return fmt.Errorf("nsvm: %s: the model file is corrupt: %w", path, safetensors.ErrChecksum)
}

// Read reads a model file from r, as Load reads one from a file: an nsvm
// model (Save's, WriteTo's) or svm-train's (ReadLIBSVMModel). It reads r to
// the end of the model.
func Read(r io.Reader) (*Model, error) {
	br := bufio.NewReader(r)
	if head, err := br.Peek(64); (err == nil || err == io.EOF) && isLIBSVMModel(head) {
		m, err := ReadLIBSVMModel(br)
		if err != nil {
			return nil, fmt.Errorf("nsvm: %w", errmsg.Strip(err))
		}
		return m, nil
	}
	b, err := io.ReadAll(br)
	if err != nil {
		return nil, fmt.Errorf("nsvm: reading the model: %w", err)
	}
	f, err := safetensors.Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, corrupt("", err)
	}
	m, err := decode(f)
	if err != nil {
		return nil, fmt.Errorf("nsvm: %w", errmsg.Strip(err))
	}
	return m, nil
}

// readHead returns the first n bytes of a file (fewer if it is shorter).
// fileKind names the kind of a file that is not a regular one.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "of another kind"
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:k], err
}

// decode builds the model a file holds, refusing tensors it does not use
// and a model whose decisions cannot be finite.
func decode(f *safetensors.File) (*Model, error) {
	m, err := decodeModel(f)
	if err != nil {
		return nil, err
	}
	if err := m.checkTensors(f); err != nil {
		return nil, err
	}
	if err := m.checkFinite(); err != nil {
		return nil, err
	}
	m.Unchecked = !f.Checked
	return m, nil
}

func decodeModel(f *safetensors.File) (*Model, error) {
	md := f.Metadata
	if md["format"] != FormatVersion {
		return nil, fmt.Errorf("nsvm: not an NSVM model (format %q, want %q)", md["format"], FormatVersion)
	}
	alg := md["algorithm"]
	if alg == "" {
		return nil, fmt.Errorf("nsvm: no algorithm in the metadata")
	}
	var inShape []int
	if err := json.Unmarshal([]byte(md["in_shape"]), &inShape); err != nil || len(inShape) == 0 {
		return nil, fmt.Errorf("nsvm: bad in_shape %q", md["in_shape"])
	}
	inSize := 1
	for _, v := range inShape {
		if v < 1 || v > 1<<24 {
			return nil, fmt.Errorf("nsvm: bad in_shape %q", md["in_shape"])
		}
		inSize *= v
	}
	if inSize > 1<<26 {
		return nil, fmt.Errorf("nsvm: bad in_shape %q", md["in_shape"])
	}
	var net *nn.Net
	outSize := inSize
	if md["arch"] != "" {
		// Check the file's parameter count before building the network, so
		// that a small file cannot make the loader allocate a huge one.
		want, err := nn.ParamCount(md["arch"], inShape)
		if err != nil {
			return nil, err
		}
		have := 0
		for name, t := range f.Tensors {
			if strings.HasPrefix(name, "theta.") {
				have += len(t.Data) / 4
			}
		}
		if have != want {
			return nil, fmt.Errorf("nsvm: the file holds %d parameter values, the architecture %q needs %d", have, md["arch"], want)
		}
		if net, err = nn.New(md["arch"], inShape, rand.New(rand.NewPCG(0, 0))); err != nil {
			return nil, err
		}
		outSize = net.OutSize()
	}
	for _, p := range params(net) {
		t, ok := f.Tensors["theta."+p.Name]
		if !ok {
			return nil, fmt.Errorf("nsvm: parameter %s missing", p.Name)
		}
		if !slices.Equal(t.Shape, p.Shape) {
			return nil, fmt.Errorf("nsvm: parameter %s has shape %v, the architecture needs %v", p.Name, t.Shape, p.Shape)
		}
		w, err := t.Float32s()
		if err != nil {
			return nil, err
		}
		if vec.HasNaNInf(w) {
			return nil, fmt.Errorf("nsvm: parameter %s holds NaN or Inf", p.Name)
		}
		p.SetTorch(w)
	}
	var ks kernel.Spec
	if err := json.Unmarshal([]byte(md["kernel"]), &ks); err != nil {
		return nil, fmt.Errorf("nsvm: bad kernel %q", md["kernel"])
	}
	if ks.Name != kernel.Precomputed || ks.Normalized {
		if err := ks.Validate(); err != nil {
			return nil, err
		}
	}
	num := func(key string) (float64, error) {
		v, err := strconv.ParseFloat(md[key], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("nsvm: bad %s %q", key, md[key])
		}
		return v, nil
	}
	var err error
	if md["classes"] != "" {
		m, err := decodeHeads(f, ks, outSize)
		if err != nil {
			return nil, err
		}
		m.Algorithm, m.Net = alg, net
		if err := m.decodeTail(f, inSize); err != nil {
			return nil, err
		}
		return m, nil
	}
	h := &svm.Model{Kernel: ks, D: outSize}
	if h.Bias, err = num("bias"); err != nil {
		return nil, err
	}
	if h.Neg, err = num("label_neg"); err != nil {
		return nil, err
	}
	if h.Pos, err = num("label_pos"); err != nil {
		return nil, err
	}
	if err := h.DecodeSupport(f, ""); err != nil {
		return nil, fmt.Errorf("nsvm: %w", err)
	}
	m := &Model{Algorithm: alg, Net: net, Head: h, Info: map[string]string{}}
	if err := m.decodeTail(f, inSize); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeTail reads the input standardisation and the training information
// of a model file into m.
func (m *Model) decodeTail(f *safetensors.File, inSize int) error {
	md := f.Metadata
	var err error
	if m.Info == nil {
		m.Info = map[string]string{}
	}
	if t, ok := f.Tensors["head_sigmoids"]; ok {
		ab, err := t.Float64s()
		if err != nil || len(t.Shape) != 2 || t.Shape[0] != m.NumHeads() || t.Shape[1] != 2 {
			return fmt.Errorf("nsvm: head_sigmoids of shape %v for %d heads", t.Shape, m.NumHeads())
		}
		for h := range t.Shape[0] {
			a, b := ab[2*h], ab[2*h+1]
			if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
				return fmt.Errorf("nsvm: head_sigmoids holds a value that is not finite")
			}
			m.Sigmoids = append(m.Sigmoids, svm.Platt{A: a, B: b})
		}
	}
	if mt, ok := f.Tensors["input_mean"]; ok {
		st, ok := f.Tensors["input_std"]
		if !ok {
			return fmt.Errorf("nsvm: input_mean without input_std")
		}
		if m.Mean, err = mt.Float64s(); err != nil {
			return err
		}
		if m.Std, err = st.Float64s(); err != nil {
			return err
		}
		if len(m.Mean) != inSize || len(m.Std) != inSize {
			return fmt.Errorf("nsvm: standardisation has %d/%d values, the input has %d", len(m.Mean), len(m.Std), inSize)
		}
		for _, s := range m.Std {
			if !(s > 0) || math.IsInf(s, 0) {
				return fmt.Errorf("nsvm: input_std holds %g, want finite values > 0", s)
			}
		}
		for _, v := range m.Mean {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("nsvm: input_mean holds %g, want finite values", v)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(md)) {
		switch k {
		case "format", "algorithm", "arch", "in_shape", "kernel", "bias", "label_neg", "label_pos":
		case "platt_a":
			a, err := strconv.ParseFloat(md[k], 64)
			if err != nil || !(a < 0) || math.IsInf(a, 0) {
				return fmt.Errorf("nsvm: bad platt_a %q (want a finite number < 0)", md[k])
			}
			m.Platt = &svm.Platt{A: a}
		case "task":
			if md[k] != Regression && md[k] != Classification {
				return fmt.Errorf("nsvm: bad task %q", md[k])
			}
			m.Task = md[k]
		case "input_columns":
			if err := json.Unmarshal([]byte(md[k]), &m.Columns); err != nil || len(m.Columns) == 0 || data.Width(m.Columns) != inSize || data.CheckColumns(m.Columns) != nil {
				return fmt.Errorf("nsvm: bad input_columns in the metadata (want columns of %d features)", inSize)
			}
		case "libsvm_label_order":
			nc := len(m.Labels())
			if err := json.Unmarshal([]byte(md[k]), &m.libsvmLabels); err != nil || len(m.libsvmLabels) != nc || !isPermutation(m.libsvmLabels) {
				return fmt.Errorf("nsvm: bad libsvm_label_order in the metadata (want an order of the %d classes)", nc)
			}
		case "test_shift":
			if m.TestShift, err = strconv.Atoi(md[k]); err != nil || m.TestShift < 1 || m.CheckTestShift() != nil {
				return fmt.Errorf("nsvm: bad test_shift %q (want 1 to %d, for a network on images of more pixels a side)", md[k], MaxTestShift)
			}
		case "label_column":
			m.LabelColumn = md[k]
		case "label_names":
			if err := json.Unmarshal([]byte(md[k]), &m.LabelNames); err != nil || len(m.LabelNames) < 2 {
				return fmt.Errorf("nsvm: bad label_names in the metadata")
			}
		case "selection":
			var sel Selection
			if err := json.Unmarshal([]byte(md[k]), &sel); err != nil || len(sel.Candidates) == 0 || sel.Winner < 0 || sel.Winner >= len(sel.Candidates) {
				return fmt.Errorf("nsvm: bad selection record in the metadata")
			}
			m.Selection = &sel
		default:
			if isHeadKey(k) {
				continue
			}
			m.Info[k] = md[k]
		}
	}
	return m.checkLabelNames()
}

// checkTensors refuses a file holding tensors the model does not use: a
// newer format, or a corrupt name (the checksum tensor's, say, which makes
// the file read as one without a checksum).
func (m *Model) checkTensors(f *safetensors.File) error {
	used := map[string]bool{}
	for _, p := range params(m.Net) {
		used["theta."+p.Name] = true
	}
	if m.Mean != nil {
		used["input_mean"], used["input_std"] = true, true
	}
	if m.Sigmoids != nil {
		used["head_sigmoids"] = true
	}
	heads, prefix := []*svm.Model{m.Head}, func(int) string { return "" }
	if m.Multiclass() {
		heads, prefix = m.Heads, func(h int) string { return "head." + strconv.Itoa(h) + "." }
	}
	for h, hd := range heads {
		for _, n := range hd.SupportTensors() {
			used[prefix(h)+n] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Tensors)) {
		if !used[name] {
			return fmt.Errorf("nsvm: the file holds a tensor %s that no model has (corrupt, or written by a newer version)", data.Quote(name))
		}
	}
	return nil
}

// probeMaxWidth bounds the width of sparse support vectors checkFinite
// makes dense to probe a model.
const probeMaxWidth = 1 << 22

// checkFinite refuses a model whose decisions cannot be finite: a kernel
// that overflows (a polynomial of degree 10⁹, γ = 10³⁰⁸ …) or coefficients
// that sum to ±Inf. Each head's decision at its support vector of largest
// norm, where a polynomial kernel's powers are largest, must be finite.
// Linear and precomputed kernels, and sparse support vectors wider than
// probeMaxWidth, are not probed (their decisions are checked as they are
// made, see PredictDataset).
func (m *Model) checkFinite() error {
	heads := m.Heads
	if heads == nil {
		heads = []*svm.Model{m.Head}
	}
	for i, h := range heads {
		name := strings.ToLower(h.Kernel.Name)
		if h.NSV == 0 || name == "linear" || name == kernel.Precomputed || h.SVSparse != nil && h.D > probeMaxWidth {
			continue
		}
		// A copy, so that the model's own evaluator is built only when it
		// predicts (a LIBSVM model may still be widened).
		probe := &svm.Model{Kernel: h.Kernel, SV: h.SV, SVSparse: h.SVSparse, NSV: h.NSV, D: h.D, Coef: h.Coef, Bias: h.Bias}
		var x data.Vec
		best := -1.0
		for j := range h.NSV {
			var v data.Vec
			if h.SVSparse != nil {
				v = h.SVSparse.Row(j)
			} else {
				v = data.Dense(h.SV[j*h.D : j*h.D+h.D])
			}
			if n := v.SqNorm(); n > best {
				x, best = v, n
			}
		}
		if g := probe.DecisionVec(x); math.IsNaN(g) || math.IsInf(g, 0) {
			what := "the model's"
			if len(heads) > 1 {
				what = fmt.Sprintf("head %d's", i)
			}
			ks, _ := json.Marshal(h.Kernel)
			return fmt.Errorf("nsvm: %s decision at its own support vector is %g: the kernel %s overflows, or the coefficients do; its decisions cannot be finite", what, g, ks)
		}
	}
	return nil
}

func params(net *nn.Net) []*nn.Param {
	if net == nil {
		return nil
	}
	return net.Params()
}

// Tasks Fit can learn.
const (
	// Classification: the labels are integral class labels.
	Classification = "classification"
	// Regression: the labels are real targets.
	Regression = "regression"
)

// Selection records how Fit chose the model.
type Selection struct {
	// Validation describes the protocol, e.g. "5-fold" or "hold-out 20 %".
	Validation string `json:"validation"`
	// Metric is the validation metric (FitConfig.Metric): "rmse" is lower
	// is better, the others higher.
	Metric     string           `json:"metric"`
	Candidates []CandidateScore `json:"candidates"`
	// Winner indexes Candidates.
	Winner int `json:"winner"`
	// Notes say what a person reading the selection would ask: why the
	// winner won when it is not the best scored (the incumbent kept against
	// a better score within noise), which kinds of candidates were not
	// tried and why.
	Notes         []string `json:"notes,omitempty"`
	BudgetReached bool     `json:"budget_reached,omitempty"`
	// Seconds is the wall time of the search (without the final fit). It
	// is not saved with the model, so that model files do not depend on the
	// machine's speed.
	Seconds float64 `json:"-"`
	// TaskNote, when the fit inferred the task from integral labels that
	// could be classes or numbers, says how it read them and how to read
	// them the other way. It is not saved either: a model is the same
	// whether its task was given or inferred.
	TaskNote string `json:"-"`
}

// CandidateScore is one candidate's validation result.
type CandidateScore struct {
	Name string `json:"name"`
	// What the candidate is: the classical solver ("smo", "linear", …) or
	// the NSVM algorithm ("nsvm4"), its kernel, C, γ (on the scaled inputs;
	// on the features for an NSVM), the SVR's ε (in standard deviations of
	// the target), ν, the input scaling and the network.
	Solver  string  `json:"solver,omitempty"`
	Kernel  string  `json:"kernel,omitempty"`
	C       float64 `json:"C,omitempty"`
	Gamma   float64 `json:"gamma,omitempty"`
	Epsilon float64 `json:"epsilon,omitempty"`
	Nu      float64 `json:"nu,omitempty"`
	Scaling string  `json:"scaling,omitempty"`
	Arch    string  `json:"arch,omitempty"`
	// Score is the mean over the folds, Std its standard deviation, and
	// Folds the score of each validation split.
	Score float64   `json:"score"`
	Std   float64   `json:"std"`
	Folds []float64 `json:"fold_scores,omitempty"`
	// Incumbent marks the classical default that another candidate must
	// beat by more than noise to win.
	Incumbent bool `json:"incumbent,omitempty"`
	// Seconds is the candidate's training time over all folds (not saved).
	Seconds float64 `json:"-"`
	// Err is set when the candidate failed (it then cannot win).
	Err string `json:"error,omitempty"`
}

// ErrBadData marks errors in the data given to Fit (wrapped; test with
// errors.Is).
var ErrBadData = errors.New("nsvm: unusable data")

// Regression reports whether m is a regressor (Task is Regression): its
// Decision is the prediction.
func (m *Model) Regression() bool { return m.Task == Regression }

// OneClass reports whether m is a one-class SVM (svm_type one_class: a
// decision ≥ 0 marks an inlier).
func (m *Model) OneClass() bool { return m.Info["svm_type"] == "one_class" }

// ScaleOutput replaces the regression function g by scale·g + shift, exactly
// representable in the head: Coef_s ← scale·Coef_s, Bias ← scale·Bias +
// shift. A regressor trained on standardised targets (y − mean)/std becomes
// one in the original units with ScaleOutput(std, mean). It panics for a
// multiclass model or a non-finite scale or shift.
func (m *Model) ScaleOutput(scale, shift float64) {
	if m.Multiclass() || math.IsNaN(scale) || math.IsInf(scale, 0) || math.IsNaN(shift) || math.IsInf(shift, 0) {
		panic(fmt.Sprintf("nsvm: ScaleOutput(%g, %g) on a model with %d classes", scale, shift, len(m.Classes)))
	}
	for i := range m.Head.Coef {
		m.Head.Coef[i] *= scale
	}
	m.Head.Bias = scale*m.Head.Bias + shift
}

// isPermutation reports whether p holds 0, …, len(p)−1 once each.
func isPermutation(p []int) bool {
	seen := make([]bool, len(p))
	for _, v := range p {
		if v < 0 || v >= len(p) || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// Clone returns a copy of m that training may change without changing m:
// the network (its parameters; gradients zero and a random number generator
// of its own, as Read gives), the heads with their support vectors, and the
// metadata are copied. The columns, the selection record and the
// calibration are shared: nothing changes them once a model is trained.
func (m *Model) Clone() *Model {
	c := &Model{Algorithm: m.Algorithm, Task: m.Task, Mean: slices.Clone(m.Mean), Std: slices.Clone(m.Std), TestShift: m.TestShift,
		Info: maps.Clone(m.Info), Classes: slices.Clone(m.Classes), Scheme: m.Scheme, Platt: m.Platt,
		Sigmoids: slices.Clone(m.Sigmoids), libsvmLabels: slices.Clone(m.libsvmLabels),
		LabelNames: slices.Clone(m.LabelNames), Columns: m.Columns, LabelColumn: m.LabelColumn,
		Selection: m.Selection, Unchecked: m.Unchecked}
	if c.Info == nil {
		c.Info = map[string]string{}
	}
	if m.Net != nil {
		c.Net = m.Net.Clone()
		c.Net.SetRand(rand.New(rand.NewPCG(0, 0)))
		c.Net.CountInto(nil)
		for _, p := range c.Net.Params() {
			clear(p.G)
		}
	}
	if m.Heads != nil {
		c.Heads = make([]*svm.Model, len(m.Heads))
		for i, h := range m.Heads {
			c.Heads[i] = h.Clone()
		}
		c.Head = c.Heads[0]
	} else if m.Head != nil {
		c.Head = m.Head.Clone()
	}
	return c
}
