package svm

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/kernel"
)

// FormatVersion is the "format" metadata of files written by Model.Save.
const FormatVersion = "nsvm-svm/1"

// Model is a kernel expansion
//
//	decision(x) = Σ_i Coef[i]·K(SV_i, x) + Bias
//
// with class Pos where decision(x) ≥ 0 and Neg elsewhere. Solvers fill every
// field; Neg = Pos = 0 is read as the default labels −1 and +1.
//
// The exported fields must not change after the first call of Decision,
// DecisionBatch or Predict: those build a cache (the kernel, ‖SV_i‖², and for
// a linear kernel w = Σ Coef[i]·SV_i) once, after which the model is safe for
// concurrent use.
type Model struct {
	Kernel kernel.Spec
	SV     []float32 // NSV×D, row-major
	NSV, D int
	Coef   []float64 // e.g. α_i·y_i (SMO) or α_i·y_i/(λT) (Pegasos)
	Bias   float64
	// Neg and Pos are the original class labels for decision < 0 and ≥ 0.
	Neg, Pos float64
	// Info describes the fit: solver, parameters, iterations, objective.
	// Save stores it as metadata.
	Info map[string]string

	once sync.Once
	ev   *evaluator
}

// evaluator is the per-model cache built on first use.
type evaluator struct {
	k      kernel.Kernel
	norms  []float32
	w      []float64 // linear kernels: Σ Coef[i]·SV_i
	rows   sync.Pool // *[]float32 of length NSV
	blocks sync.Pool // *[]float32 of capacity decisionBlock·NSV
}

func (m *Model) check() {
	if m.NSV < 0 || m.D < 1 || len(m.SV) != m.NSV*m.D || len(m.Coef) != m.NSV {
		panic(fmt.Sprintf("svm: inconsistent model: NSV=%d, D=%d, len(SV)=%d, len(Coef)=%d", m.NSV, m.D, len(m.SV), len(m.Coef)))
	}
}

func (m *Model) eval() *evaluator {
	m.once.Do(func() {
		m.check()
		k, err := kernel.New(m.Kernel)
		if err != nil {
			panic("svm: model with invalid kernel: " + err.Error())
		}
		ev := &evaluator{k: k}
		if m.Kernel.Name == "linear" && !m.Kernel.Normalized {
			ev.w = make([]float64, m.D)
			for i := 0; i < m.NSV; i++ {
				c := m.Coef[i]
				for j, v := range m.SV[i*m.D : (i+1)*m.D] {
					ev.w[j] += c * float64(v)
				}
			}
		} else {
			ev.norms = make([]float32, m.NSV)
			for i := range ev.norms {
				ev.norms[i] = float32(sqNorm64(m.SV[i*m.D : (i+1)*m.D]))
			}
		}
		n := m.NSV
		ev.rows.New = func() any { r := make([]float32, n); return &r }
		m.ev = ev
	})
	return m.ev
}

func sqNorm64(a []float32) float64 {
	var s float64
	for _, v := range a {
		s += float64(v) * float64(v)
	}
	return s
}

// Decision returns Σ_i Coef[i]·K(SV_i, x) + Bias.
func (m *Model) Decision(x []float32) float64 {
	ev := m.eval()
	if len(x) != m.D {
		panic(fmt.Sprintf("svm: Decision: len(x) = %d, want D = %d", len(x), m.D))
	}
	s := m.Bias
	if ev.w != nil {
		return linearDecision(ev.w, x, s)
	}
	if m.NSV == 0 {
		return s
	}
	rp := ev.rows.Get().(*[]float32)
	row := *rp
	ev.k.Row(row, m.SV, ev.norms, x)
	var acc float64
	for i, c := range m.Coef {
		acc += c * float64(row[i])
	}
	ev.rows.Put(rp)
	return s + acc
}

// linearDecision returns bias + Σ_j w_j·x_j, summed in order.
func linearDecision(w []float64, x []float32, bias float64) float64 {
	w = w[:len(x)]
	for j, v := range x {
		bias += w[j] * float64(v)
	}
	return bias
}

// decisionBlock is the number of rows DecisionBatch evaluates per kernel
// matrix.
const decisionBlock = 64

// DecisionBatch sets dst[i] to the decision value of row i of the n×D
// row-major matrix x, splitting large batches across GOMAXPROCS goroutines.
func (m *Model) DecisionBatch(dst []float64, x []float32, n int) {
	ev := m.eval()
	if len(dst) < n || len(x) != n*m.D {
		panic(fmt.Sprintf("svm: DecisionBatch: len(dst) = %d, len(x) = %d for n = %d rows of D = %d", len(dst), len(x), n, m.D))
	}
	if m.NSV == 0 {
		for i := range dst[:n] {
			dst[i] = m.Bias
		}
		return
	}
	if ev.w != nil {
		m.linearBatch(dst, x, n)
		return
	}
	blocks := (n + decisionBlock - 1) / decisionBlock
	workers := min(runtime.GOMAXPROCS(0), blocks)
	if n*m.NSV*m.D < 1<<18 {
		workers = 1
	}
	var next atomic.Int64
	work := func() {
		bp, _ := ev.blocks.Get().(*[]float32)
		if bp == nil {
			bp = new([]float32)
		}
		if cap(*bp) < min(n, decisionBlock)*m.NSV {
			*bp = make([]float32, min(n, decisionBlock)*m.NSV, decisionBlock*m.NSV)
		}
		buf := (*bp)[:cap(*bp)]
		defer ev.blocks.Put(bp)
		for {
			b := int(next.Add(1)) - 1
			if b >= blocks {
				return
			}
			lo, hi := b*decisionBlock, min((b+1)*decisionBlock, n)
			nb := hi - lo
			ev.k.Cross(buf, x[lo*m.D:hi*m.D], nb, nil, m.SV, m.NSV, ev.norms, m.D)
			for r := 0; r < nb; r++ {
				row := buf[r*m.NSV : (r+1)*m.NSV]
				var acc float64
				for i, c := range m.Coef {
					acc += c * float64(row[i])
				}
				dst[lo+r] = m.Bias + acc
			}
		}
	}
	if workers == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(work)
	}
	wg.Wait()
}

// linearBatch is DecisionBatch for a linear kernel: w·x + b per row (as
// Decision), with batches of at least 2¹⁸ values split across GOMAXPROCS
// goroutines by blocks of rows.
func (m *Model) linearBatch(dst []float64, x []float32, n int) {
	w, d := m.ev.w, m.D
	rows := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = linearDecision(w, x[i*d:(i+1)*d], m.Bias)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if n*d < 1<<18 || workers < 2 {
		rows(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := step; lo < n; lo += step {
		wg.Go(func() { rows(lo, min(lo+step, n)) })
	}
	rows(0, min(step, n))
	wg.Wait()
}

func (m *Model) labels() (neg, pos float64) {
	if m.Neg == 0 && m.Pos == 0 {
		return -1, 1
	}
	return m.Neg, m.Pos
}

// Predict returns Pos if Decision(x) ≥ 0, else Neg.
func (m *Model) Predict(x []float32) float64 {
	neg, pos := m.labels()
	if m.Decision(x) >= 0 {
		return pos
	}
	return neg
}

// Save writes the model to path in the safetensors layout: tensors "sv"
// (F32, NSV×D) and "coef" (F64, NSV); metadata "format" (FormatVersion),
// "kernel" (the spec as JSON), "bias", "label_neg", "label_pos" (as %.17g)
// and every Info entry under "info.<key>". The write goes through a
// temporary file and a rename.
func (m *Model) Save(path string) error {
	m.check()
	ks, err := json.Marshal(m.Kernel)
	if err != nil {
		return fmt.Errorf("svm: %w", err)
	}
	neg, pos := m.labels()
	meta := map[string]string{
		"format":    FormatVersion,
		"kernel":    string(ks),
		"bias":      fmtF(m.Bias),
		"label_neg": fmtF(neg),
		"label_pos": fmtF(pos),
	}
	for k, v := range m.Info {
		meta["info."+k] = v
	}
	return safetensors.WriteFile(path, meta, []safetensors.Tensor{
		safetensors.F32("sv", []int{m.NSV, m.D}, m.SV),
		safetensors.F64("coef", []int{m.NSV}, m.Coef),
	})
}

// Load reads a model written by Save.
func Load(path string) (*Model, error) {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := decode(f)
	if err != nil {
		return nil, fmt.Errorf("svm: %s: %w", path, err)
	}
	return m, nil
}

func decode(f *safetensors.File) (*Model, error) {
	md := f.Metadata
	if md["format"] != FormatVersion {
		return nil, fmt.Errorf("format %q, want %q", md["format"], FormatVersion)
	}
	m := &Model{Info: map[string]string{}}
	if err := json.Unmarshal([]byte(md["kernel"]), &m.Kernel); err != nil {
		return nil, fmt.Errorf("bad kernel %q: %v", md["kernel"], err)
	}
	if err := m.Kernel.Validate(); err != nil {
		return nil, err
	}
	for _, v := range []struct {
		key string
		dst *float64
	}{{"bias", &m.Bias}, {"label_neg", &m.Neg}, {"label_pos", &m.Pos}} {
		x, err := strconv.ParseFloat(md[v.key], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("bad %s %q", v.key, md[v.key])
		}
		*v.dst = x
	}
	if m.Neg == m.Pos {
		return nil, fmt.Errorf("both classes have label %g", m.Neg)
	}
	sv, ok1 := f.Tensors["sv"]
	coef, ok2 := f.Tensors["coef"]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("tensors sv and coef are required")
	}
	if len(sv.Shape) != 2 || sv.Shape[1] < 1 || len(coef.Shape) != 1 || coef.Shape[0] != sv.Shape[0] {
		return nil, fmt.Errorf("sv of shape %v and coef of shape %v do not match", sv.Shape, coef.Shape)
	}
	var err error
	if m.SV, err = sv.Float32s(); err != nil {
		return nil, err
	}
	if m.Coef, err = coef.Float64s(); err != nil {
		return nil, err
	}
	m.NSV, m.D = sv.Shape[0], sv.Shape[1]
	for _, v := range m.SV {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("non-finite support vector entry %g", v)
		}
	}
	for _, v := range m.Coef {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("non-finite coefficient %g", v)
		}
	}
	for k, v := range md {
		if name, ok := strings.CutPrefix(k, "info."); ok {
			m.Info[name] = v
		}
	}
	return m, nil
}

// DualObjective returns ½·cᵀK_SV·c − Σ_i |c_i| for c = m.Coef and the
// kernel matrix of the support vectors. For a model whose coefficients are
// α_i·y_i (SMO, Chunking, DualSGA) this is the C-SVM dual objective
// f(α) = ½αᵀQα − eᵀα that SMO minimises (LIBSVM prints it as "obj"). It
// costs O(NSV²·D).
func DualObjective(k kernel.Kernel, m *Model) float64 {
	m.check()
	row := make([]float32, m.NSV)
	norms := make([]float32, m.NSV)
	for i := range norms {
		norms[i] = float32(sqNorm64(m.SV[i*m.D : (i+1)*m.D]))
	}
	var quad, lin float64
	for i := 0; i < m.NSV; i++ {
		k.Row(row, m.SV, norms, m.SV[i*m.D:(i+1)*m.D])
		var s float64
		for j, c := range m.Coef {
			s += c * float64(row[j])
		}
		quad += m.Coef[i] * s
		lin += math.Abs(m.Coef[i])
	}
	return quad/2 - lin
}
