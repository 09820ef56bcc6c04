package paper

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/nn"
)

// Options controls a training run beyond the algorithm's configuration.
type Options struct {
	// Seed seeds the run's random stream (sampling) and the dropout masks.
	// The network's initial parameters come from the caller (nn.New).
	Seed uint64
	// Progress, if not nil, receives progress reports.
	Progress ProgressFunc
	// Checkpoint, if not nil, receives a checkpoint every CheckpointEvery
	// steps (0: every T/20 of the run's T steps) and when the context is
	// cancelled. A run resumed from
	// a checkpoint with the same configuration and data ends with exactly the
	// model the uninterrupted run would have produced.
	Checkpoint      func(*Checkpoint) error
	CheckpointEvery int
	// Resume, if not nil, continues the run from this checkpoint.
	Resume *Checkpoint
	// Monitor, if not nil, is called on the training goroutine after every
	// MonitorEvery-th step (0: every step) and after the last one, with the
	// number of steps done; the network is then between steps, so its
	// Features may be used (for a validation score) and its parameters
	// replaced (to go back to an earlier, better state). Returning true
	// ends the run after that step, as if T had been t, for Part I of
	// Algorithm 4 (binary, multiclass and regression): Part II then runs on
	// the network as the monitor left it. Algorithms 1–3, whose expansions
	// carry 1/(λT), ignore the request and run to T.
	Monitor      func(t int) (stop bool)
	MonitorEvery int
}

// Checkpoint is the complete state of a training run after Step steps: θ,
// the optimizer's buffers, the random streams and the algorithm's own state
// (α, stored features, sampler permutation). For Algorithm 4 it covers Part I.
// It records what the run was made from — the configuration, the seed and a
// fingerprint of the training data — and a run resumes from it only with
// the same three.
type Checkpoint struct {
	Algorithm  int
	Step       int // steps completed
	ThetaSteps int // θ-updates taken (drives the learning-rate schedule)
	Config     string
	// Seed is Options.Seed of the run.
	Seed uint64
	// Data fingerprints the training data: the SHA-256 (hex) of the rows
	// (dense or sparse), the labels or targets and the row weights the
	// trainer was given; "" for a run whose rows are refilled from a
	// stream (TrainPart1 with Refill), which it cannot fingerprint.
	Data       string
	Arch       string
	InShape    []int
	RNG        []byte // PCG state of the sampling stream
	DropoutRNG []byte
	Theta      map[string][]float32
	Opt        [][]float32
	F32        map[string][]float32
	F64        map[string][]float64
	I64        map[string][]int64
}

func newCheckpoint() *Checkpoint {
	return &Checkpoint{Theta: map[string][]float32{}, F32: map[string][]float32{}, F64: map[string][]float64{}, I64: map[string][]int64{}}
}

// configKey fingerprints a trainer configuration for resume checks; the step
// count is left out so that a resumed run may be extended.
func configKey(alg int, cfg any) string {
	b, _ := json.Marshal(cfg)
	var m map[string]any
	json.Unmarshal(b, &m)
	delete(m, "T")
	if c, ok := m["Config"].(map[string]any); ok {
		delete(c, "T")
		delete(c, "ReportEvery")
	}
	delete(m, "ReportEvery")
	out, _ := json.Marshal(m)
	return strconv.Itoa(alg) + ":" + string(out)
}

type stateOptimizer interface {
	State() [][]float32
	SetState([][]float32) error
}

// runNet drives a trainer on an nn.Net, wiring checkpoints and resume.
func runNet(ctx context.Context, alg int, net *nn.Net, opt Optimizer, tr trainer, r *runState, dropout *rand.PCG, T int, key string, o Options) (*head, error) {
	var data string
	if o.Checkpoint != nil || o.Resume != nil {
		data = dataFingerprint(tr)
	}
	snap := func(t int) (*Checkpoint, error) {
		c := newCheckpoint()
		c.Algorithm, c.Step, c.ThetaSteps, c.Config = alg, t, r.thetaT, key
		c.Seed, c.Data = o.Seed, data
		c.Arch, c.InShape = net.Spec(), net.InShape()
		var err error
		if c.RNG, err = r.pcg.MarshalBinary(); err != nil {
			return nil, err
		}
		if c.DropoutRNG, err = dropout.MarshalBinary(); err != nil {
			return nil, err
		}
		for _, p := range net.Params() {
			c.Theta[p.Name] = slices.Clone(p.W)
		}
		if so, ok := opt.(stateOptimizer); ok {
			for _, s := range so.State() {
				c.Opt = append(c.Opt, slices.Clone(s))
			}
		}
		tr.saveState(c)
		// Copy algorithm state so that the checkpoint does not alias the run.
		for k, v := range c.F32 {
			c.F32[k] = slices.Clone(v)
		}
		for k, v := range c.F64 {
			c.F64[k] = slices.Clone(v)
		}
		return c, nil
	}
	resume := func(c *Checkpoint) error {
		if c.Algorithm != alg {
			return errf("checkpoint is for algorithm %d, not %d", c.Algorithm, alg)
		}
		if c.Config != key {
			return errf("checkpoint was written with a different configuration: %s", configDiff(c.Config, key))
		}
		if c.Seed != o.Seed {
			return errf("checkpoint was made with seed %d, not %d", c.Seed, o.Seed)
		}
		if c.Data != data {
			return errf("checkpoint was made on other training data (rows, labels or weights differ: fingerprint %.12s in the checkpoint, %.12s now)", c.Data, data)
		}
		if c.Arch != net.Spec() || !slices.Equal(c.InShape, net.InShape()) {
			return errf("checkpoint is for network %q with input %v, not %q with %v", c.Arch, c.InShape, net.Spec(), net.InShape())
		}
		if c.Step < tr.first()-1 || c.Step > T {
			return errf("checkpoint is at step %d, outside 1..%d", c.Step, T)
		}
		for _, p := range net.Params() {
			w, ok := c.Theta[p.Name]
			if !ok || len(w) != len(p.W) {
				return errf("checkpoint parameter %s is missing or has the wrong size", p.Name)
			}
			copy(p.W, w)
		}
		if so, ok := opt.(stateOptimizer); ok {
			if err := so.SetState(c.Opt); err != nil {
				return errf("checkpoint optimizer state: %v", err)
			}
		}
		if err := r.pcg.UnmarshalBinary(c.RNG); err != nil {
			return errf("checkpoint random state: %v", err)
		}
		if err := dropout.UnmarshalBinary(c.DropoutRNG); err != nil {
			return errf("checkpoint dropout random state: %v", err)
		}
		r.thetaT = c.ThetaSteps
		net.ZeroGrad()
		return tr.loadState(c)
	}
	if err := drive(ctx, tr, r, T, o, snap, resume); err != nil {
		return nil, err
	}
	return tr.finish()
}

// configDiff names the settings in which two configuration keys (see
// configKey) differ, with their values, in a few words.
func configDiff(was, now string) string {
	flat := func(key string) map[string]string {
		out := map[string]string{}
		alg, js, _ := strings.Cut(key, ":")
		out["algorithm"] = alg
		var m map[string]any
		if json.Unmarshal([]byte(js), &m) != nil {
			out["(configuration)"] = js
			return out
		}
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			if sub, ok := v.(map[string]any); ok {
				for k, x := range sub {
					walk(prefix+k+".", x)
				}
				return
			}
			b, _ := json.Marshal(v)
			out[strings.TrimSuffix(prefix, ".")] = string(b)
		}
		walk("", m)
		return out
	}
	a, b := flat(was), flat(now)
	var diffs []string
	for _, k := range sortedKeys(a) {
		if a[k] != b[k] {
			diffs = append(diffs, k)
		}
	}
	for _, k := range sortedKeys(b) {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, k)
		}
	}
	short := func(s string) string {
		if s == "" {
			return "unset"
		}
		if len(s) > 24 {
			return s[:24] + "…"
		}
		return s
	}
	var parts []string
	for i, k := range diffs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(diffs)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s in the checkpoint, %s now", k, short(a[k]), short(b[k])))
	}
	return strings.Join(parts, "; ")
}

// dataFingerprint returns the SHA-256 (hex) of what tr trains on: its
// rows, dense or sparse, their labels (targets, class indices) and weights;
// "" for rows refilled from a stream.
func dataFingerprint(tr trainer) string {
	h := fingerprint{hash: sha256.New()}
	problem := func(p Problem) {
		h.rows(p.X, p.Sparse, p.N, p.D)
		h.f32(p.Y)
		h.f32(p.W)
	}
	switch t := tr.(type) {
	case *alg1:
		problem(t.p)
	case *alg2:
		problem(t.p)
	case *alg3:
		problem(t.p)
	case *jointAlg3:
		h.rows(t.p.X, t.p.Sparse, t.p.N, t.p.D)
		h.ints(t.p.C)
		h.ints(t.p.Y...)
		h.f32(t.p.W)
	case *alignTrainer:
		if t.refill != nil {
			return ""
		}
		h.rows(t.x, t.sp, t.m, t.d)
		h.ints(t.tg.c)
		h.ints(t.tg.cls...)
		h.f64(t.tg.y)
		h.f32(t.tg.labels)
		h.f64(t.cum)
	default:
		panic(fmt.Sprintf("paper: no data fingerprint for %T", tr))
	}
	h.flush()
	return hex.EncodeToString(h.hash.Sum(nil))
}

// fingerprint hashes numbers little-endian, each slice with its length.
type fingerprint struct {
	hash hash.Hash
	buf  []byte
}

// grow flushes the buffer when it is full.
func (f *fingerprint) grow() {
	if len(f.buf) >= 1<<16 {
		f.flush()
	}
}

func (f *fingerprint) flush() {
	f.hash.Write(f.buf)
	f.buf = f.buf[:0]
}

func (f *fingerprint) ints(v ...int) {
	f.buf = binary.LittleEndian.AppendUint64(f.buf, uint64(len(v)))
	for _, x := range v {
		f.buf = binary.LittleEndian.AppendUint64(f.buf, uint64(x))
		f.grow()
	}
}

func (f *fingerprint) f32(v []float32) {
	f.buf = binary.LittleEndian.AppendUint64(f.buf, uint64(len(v)))
	for _, x := range v {
		f.buf = binary.LittleEndian.AppendUint32(f.buf, math.Float32bits(x))
		f.grow()
	}
}

func (f *fingerprint) f64(v []float64) {
	f.buf = binary.LittleEndian.AppendUint64(f.buf, uint64(len(v)))
	for _, x := range v {
		f.buf = binary.LittleEndian.AppendUint64(f.buf, math.Float64bits(x))
		f.grow()
	}
}

// rows hashes n rows of width d: x, or sp when it is not nil.
func (f *fingerprint) rows(x []float32, sp *data.CSR, n, d int) {
	f.ints(n, d)
	if sp == nil {
		f.f32(x)
		return
	}
	f.buf = binary.LittleEndian.AppendUint64(f.buf, uint64(len(sp.Ptr)))
	for _, p := range sp.Ptr {
		f.buf = binary.LittleEndian.AppendUint64(f.buf, uint64(p))
		f.grow()
	}
	f.buf = binary.LittleEndian.AppendUint64(f.buf, uint64(len(sp.Idx)))
	for _, j := range sp.Idx {
		f.buf = binary.LittleEndian.AppendUint32(f.buf, uint32(j))
		f.grow()
	}
	f.f32(sp.Val)
}

// CheckpointFormat is written into every checkpoint file's metadata.
// Version 2 added the seed, the data fingerprint and the checksum.
const CheckpointFormat = "nsvm-checkpoint/2"

// Save writes the checkpoint to path (safetensors layout with a checksum;
// a temporary file renamed over path).
func (c *Checkpoint) Save(path string) error {
	shape, _ := json.Marshal(c.InShape)
	meta := map[string]string{
		"format":      CheckpointFormat,
		"seed":        strconv.FormatUint(c.Seed, 10),
		"data":        c.Data,
		"algorithm":   strconv.Itoa(c.Algorithm),
		"step":        strconv.Itoa(c.Step),
		"theta_steps": strconv.Itoa(c.ThetaSteps),
		"config":      c.Config,
		"arch":        c.Arch,
		"in_shape":    string(shape),
		"rng":         base64.StdEncoding.EncodeToString(c.RNG),
		"dropout_rng": base64.StdEncoding.EncodeToString(c.DropoutRNG),
		"opt_buffers": strconv.Itoa(len(c.Opt)),
	}
	var ts []safetensors.Tensor
	for _, k := range sortedKeys(c.Theta) {
		ts = append(ts, safetensors.F32("theta."+k, []int{len(c.Theta[k])}, c.Theta[k]))
	}
	for i, v := range c.Opt {
		ts = append(ts, safetensors.F32("opt."+strconv.Itoa(i), []int{len(v)}, v))
	}
	for _, k := range sortedKeys(c.F32) {
		ts = append(ts, safetensors.F32("f32."+k, []int{len(c.F32[k])}, c.F32[k]))
	}
	for _, k := range sortedKeys(c.F64) {
		ts = append(ts, safetensors.F64("f64."+k, []int{len(c.F64[k])}, c.F64[k]))
	}
	for _, k := range sortedKeys(c.I64) {
		ts = append(ts, safetensors.I64("i64."+k, []int{len(c.I64[k])}, c.I64[k]))
	}
	return safetensors.WriteFile(path, meta, ts)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// LoadCheckpoint reads a checkpoint written by Checkpoint.Save. A file
// whose checksum does not match is refused as corrupt, and one of the
// previous format (without seed, data fingerprint and checksum) as one that
// cannot be verified.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	f, err := safetensors.ReadFile(path)
	if errors.Is(err, safetensors.ErrChecksum) {
		return nil, fmt.Errorf("nsvm: %s: the checkpoint file is corrupt: %w", path, safetensors.ErrChecksum)
	}
	if err != nil {
		return nil, err
	}
	return decodeCheckpoint(f, path)
}

// decodeCheckpoint reads the checkpoint a file holds; path names it in
// errors.
func decodeCheckpoint(f *safetensors.File, path string) (*Checkpoint, error) {
	var err error
	md := f.Metadata
	bad := func(what string) error { return fmt.Errorf("nsvm: %s: bad checkpoint %s", path, what) }
	switch {
	case md["format"] == "nsvm-checkpoint/1":
		return nil, fmt.Errorf("nsvm: %s is a checkpoint of an older nsvm, which recorded neither the data nor the seed of its run: it cannot be verified, start the run again", path)
	case md["format"] != CheckpointFormat:
		return nil, fmt.Errorf("nsvm: %s is not an nsvm checkpoint (format %q)", path, md["format"])
	case !f.Checked:
		return nil, fmt.Errorf("nsvm: %s: the checkpoint carries no checksum", path)
	}
	c := newCheckpoint()
	if c.Seed, err = strconv.ParseUint(md["seed"], 10, 64); err != nil {
		return nil, bad("seed")
	}
	c.Data = md["data"]
	if _, herr := hex.DecodeString(c.Data); herr != nil || len(c.Data) != 0 && len(c.Data) != 2*sha256.Size {
		return nil, bad("data fingerprint")
	}
	if c.Algorithm, err = strconv.Atoi(md["algorithm"]); err != nil {
		return nil, bad("algorithm")
	}
	if c.Step, err = strconv.Atoi(md["step"]); err != nil || c.Step < 0 {
		return nil, bad("step")
	}
	if c.ThetaSteps, err = strconv.Atoi(md["theta_steps"]); err != nil || c.ThetaSteps < 0 {
		return nil, bad("theta_steps")
	}
	c.Config, c.Arch = md["config"], md["arch"]
	if err := json.Unmarshal([]byte(md["in_shape"]), &c.InShape); err != nil {
		return nil, bad("in_shape")
	}
	if c.RNG, err = base64.StdEncoding.DecodeString(md["rng"]); err != nil {
		return nil, bad("rng")
	}
	if c.DropoutRNG, err = base64.StdEncoding.DecodeString(md["dropout_rng"]); err != nil {
		return nil, bad("dropout_rng")
	}
	nOpt, err := strconv.Atoi(md["opt_buffers"])
	if err != nil || nOpt < 0 || nOpt > len(f.Tensors) {
		return nil, bad("opt_buffers")
	}
	c.Opt = make([][]float32, nOpt)
	for name, t := range f.Tensors {
		kind, key, _ := strings.Cut(name, ".")
		var err error
		switch kind {
		case "theta":
			c.Theta[key], err = t.Float32s()
		case "opt":
			i, aerr := strconv.Atoi(key)
			if aerr != nil || i < 0 || i >= nOpt {
				return nil, bad("optimizer tensor " + data.Quote(name))
			}
			c.Opt[i], err = t.Float32s()
		case "f32":
			c.F32[key], err = t.Float32s()
		case "f64":
			c.F64[key], err = t.Float64s()
		case "i64":
			c.I64[key], err = t.Int64s()
		default:
			return nil, bad("tensor " + data.Quote(name))
		}
		if err != nil {
			return nil, fmt.Errorf("nsvm: %s: %w", path, err)
		}
	}
	return c, nil
}
