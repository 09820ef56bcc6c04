package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/nn"
)

// runCLI runs the program in-process, as main does, and returns what it
// printed and its exit status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	code = exitStatus(err, &errb)
	return out.String(), errb.String(), code
}

// mustRun runs a command that must succeed and returns its stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("nsvm %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// fixtures are the input files the bad-input cases read.
type fixtures struct {
	dir     string // inputs only; never written by a case
	ring    string // generated Ringnorm, LIBSVM, 200 rows
	model   string // an SMO model of ring (20 inputs)
	nsvm    string // an Algorithm 4 model of ring
	ringCSV string // ring as CSV
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newFixtures(t *testing.T) *fixtures {
	t.Helper()
	dir := t.TempDir()
	f := &fixtures{dir: dir, ring: filepath.Join(dir, "ring.txt"), model: filepath.Join(dir, "smo.nsvm"),
		nsvm: filepath.Join(dir, "nsvm4.nsvm"), ringCSV: filepath.Join(dir, "ring.csv")}
	mustRun(t, "data", "ringnorm", "--n", "200", "--seed", "3", "--out", f.ring)
	mustRun(t, "data", "ringnorm", "--n", "200", "--seed", "3", "--format", "csv", "--out", f.ringCSV)
	mustRun(t, "train", "--data", f.ring, "--model", f.model, "--algo", "smo", "--quiet")
	mustRun(t, "train", "--data", f.ring, "--model", f.nsvm, "--algo", "nsvm4", "--steps", "5", "--steps2", "50", "--quiet")
	rng := rand.New(rand.NewPCG(1, 2))
	var three, one, wide, narrow strings.Builder
	for i := range 30 {
		fmt.Fprintf(&three, "%d 1:%.3f 2:%.3f\n", i%3, rng.Float64(), rng.Float64())
		fmt.Fprintf(&one, "1 1:%.3f 2:%.3f\n", rng.Float64(), rng.Float64())
		for j := range 30 {
			fmt.Fprintf(&wide, "%.3f,", rng.Float64())
			if j < 5 {
				fmt.Fprintf(&narrow, "%.3f,", rng.Float64())
			}
		}
		fmt.Fprintf(&wide, "%d\n", i%2)
		fmt.Fprintf(&narrow, "%d\n", i%2)
	}
	for name, content := range map[string]string{
		"three.txt":     three.String(),
		"one.txt":       one.String(),
		"wide.csv":      wide.String(),
		"narrow.csv":    narrow.String(),
		"malformed.txt": "1 1:0.5 2:0.25\n-1 1:abc 2:1\n",
		"badindex.txt":  "1 0:0.5\n-1 1:1\n",
		"ragged.csv":    "1,2,1\n3,4\n",
		"nan.txt":       "1 1:nan 2:1\n-1 1:1 2:2\n",
		"inf.csv":       "x1,x2,y\n1,inf,1\n2,3,-1\n",
		"overflow.csv":  "x1,x2,y\n1,1e39,1\n2,3,-1\n",
		"nanlabel.txt":  "nan 1:1\n1 1:2\n",
		"empty.txt":     "",
		"garbage.nsvm":  "this is not a model\n",
		"big21.txt":     "1 21:1\n-1 1:1\n",
	} {
		writeFile(t, filepath.Join(dir, name), content)
	}
	// Corrupted copies of a valid model.
	raw, err := os.ReadFile(f.nsvm)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "truncated.nsvm"), string(raw[:len(raw)/2]))
	flipped := slices.Clone(raw)
	flipped[7] = 0x7f // header length far beyond the file
	writeFile(t, filepath.Join(dir, "hugeheader.nsvm"), string(flipped))
	// Well-formed files whose metadata lies about the tensors.
	for name, lie := range map[string][2]string{
		"lying-shape.nsvm":  {"in_shape", "[21]"},
		"lying-arch.nsvm":   {"arch", "dense(7),relu"},
		"lying-kernel.nsvm": {"kernel", `{"name":"rbf","gamma":-1}`},
		"lying-label.nsvm":  {"label_pos", "NaN"},
		"lying-format.nsvm": {"format", "nsvm/9"},
	} {
		writeFile(t, filepath.Join(dir, name), string(withMetadata(t, raw, lie[0], lie[1])))
	}
	return f
}

// withMetadata returns the model file raw with one metadata value replaced
// and the header length and checksum fixed up, so that the file stays
// well-formed.
func withMetadata(t *testing.T, raw []byte, key, value string) []byte {
	t.Helper()
	n := binary.LittleEndian.Uint64(raw[:8])
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &hdr); err != nil {
		t.Fatal(err)
	}
	var meta map[string]string
	if err := json.Unmarshal(hdr["__metadata__"], &meta); err != nil {
		t.Fatal(err)
	}
	meta[key] = value
	hdr["__metadata__"], _ = json.Marshal(meta)
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	out = append(out, h...)
	out = append(out, raw[8+n:]...)
	sum := sha256.Sum256(out[:len(out)-sha256.Size])
	copy(out[len(out)-sha256.Size:], sum[:])
	return out
}

// listDir returns the names in dir, recursively, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// TestBadInput drives every kind of bad input through the program: each must
// fail with a non-zero status, print exactly one line on stderr and nothing
// on stdout, never panic, and leave no output (or temporary) file behind.
func TestBadInput(t *testing.T) {
	fx := newFixtures(t)
	in := func(name string) string { return filepath.Join(fx.dir, name) }
	inputsBefore := listDir(t, fx.dir)
	train := func(extra ...string) []string {
		return append([]string{"train", "--data", fx.ring, "--model", "{out}/m.nsvm", "--quiet"}, extra...)
	}
	cases := []struct {
		name string
		args []string
		code int    // wanted exit status
		want string // part of the message
	}{
		// Data files.
		{"missing data file", []string{"train", "--data", in("nope.txt"), "--model", "{out}/m.nsvm"}, 1, "no such file"},
		{"malformed row", []string{"train", "--data", in("malformed.txt"), "--model", "{out}/m.nsvm", "--algo", "smo"}, 1, "malformed.txt:2"},
		{"LIBSVM index 0", []string{"train", "--data", in("badindex.txt"), "--model", "{out}/m.nsvm"}, 1, "1-based"},
		{"ragged CSV", []string{"train", "--data", in("ragged.csv"), "--model", "{out}/m.nsvm"}, 1, "ragged.csv:2"},
		{"NaN feature", []string{"train", "--data", in("nan.txt"), "--model", "{out}/m.nsvm", "--algo", "smo"}, 1, "not finite"},
		{"Inf feature", []string{"train", "--data", in("inf.csv"), "--model", "{out}/m.nsvm", "--algo", "nsvm4"}, 1, "not finite"},
		{"float32 overflow", []string{"train", "--data", in("overflow.csv"), "--model", "{out}/m.nsvm"}, 1, "1e39"},
		{"NaN label", []string{"train", "--data", in("nanlabel.txt"), "--model", "{out}/m.nsvm"}, 1, "label"},
		{"empty data", []string{"train", "--data", in("empty.txt"), "--model", "{out}/m.nsvm"}, 1, "empty.txt"},
		{"3 classes, nsvm2", []string{"train", "--data", in("three.txt"), "--model", "{out}/m.nsvm", "--algo", "nsvm2"}, 1, "3 classes"},
		{"3 classes, nsvm1", []string{"train", "--data", in("three.txt"), "--model", "{out}/m.nsvm", "--algo", "nsvm1"}, 1, "3 classes"},
		{"one class", []string{"train", "--data", in("one.txt"), "--model", "{out}/m.nsvm", "--algo", "nsvm4"}, 1, "only one class"},
		{"directory as data", []string{"train", "--data", fx.dir, "--model", "{out}/m.nsvm"}, 1, ""},
		// Model and data that do not fit.
		{"predict: too many columns", []string{"predict", "--model", fx.model, "--data", in("wide.csv")}, 1, "the model's data had 20 feature columns"},
		{"predict: too few columns", []string{"predict", "--model", fx.nsvm, "--data", in("narrow.csv")}, 1, "the model's data had 20 feature columns"},
		{"eval: too many columns", []string{"eval", "--model", fx.nsvm, "--data", in("wide.csv")}, 1, "the model's data had 20 feature columns"},
		{"eval: LIBSVM index beyond the model", []string{"eval", "--model", fx.model, "--data", in("big21.txt")}, 1, "exceeds the dimension 20"},
		{"eval: labels the model does not know", []string{"eval", "--model", fx.model, "--data", in("three.txt")}, 1, ""},
		{"eval: missing model", []string{"eval", "--model", in("nope.nsvm"), "--data", fx.ring}, 1, "no such file"},
		{"eval: text as model", []string{"eval", "--model", in("garbage.nsvm"), "--data", fx.ring}, 1, "garbage.nsvm"},
		{"eval: truncated model", []string{"eval", "--model", in("truncated.nsvm"), "--data", fx.ring}, 1, "truncated.nsvm"},
		{"predict: huge header length", []string{"predict", "--model", in("hugeheader.nsvm"), "--data", fx.ring}, 1, "header length"},
		{"predict: in_shape that lies", []string{"predict", "--model", in("lying-shape.nsvm"), "--data", fx.ring}, 1, "shape"},
		{"predict: arch that lies", []string{"predict", "--model", in("lying-arch.nsvm"), "--data", fx.ring}, 1, "lying-arch.nsvm"},
		{"eval: kernel that lies", []string{"eval", "--model", in("lying-kernel.nsvm"), "--data", fx.ring}, 1, "gamma"},
		{"eval: label that lies", []string{"eval", "--model", in("lying-label.nsvm"), "--data", fx.ring}, 1, "label_pos"},
		{"eval: unknown format version", []string{"eval", "--model", in("lying-format.nsvm"), "--data", fx.ring}, 1, "nsvm/9"},
		{"eval: data file as model", []string{"eval", "--model", fx.ring, "--data", fx.ring}, 1, ""},
		{"resume: model as checkpoint", train("--algo", "nsvm1", "--resume", fx.model), 1, "checkpoint"},
		// Flags and hyperparameters.
		{"no command", nil, 2, "no command"},
		{"unknown command", []string{"fit"}, 2, `unknown command "fit"`},
		{"unknown flag", train("--bogus"), 2, "-bogus"},
		{"flag without value", []string{"train", "--data"}, 2, "needs an argument"},
		{"non-integer steps", train("--steps", "1e3"), 2, "-steps"},
		{"negative seed", train("--seed", "-1"), 2, "-seed"},
		{"stray argument", append(train(), "extra"), 2, `unexpected argument "extra"`},
		{"missing --model", []string{"train", "--data", fx.ring}, 2, "--model is required"},
		{"missing --data", []string{"train", "--model", "{out}/m.nsvm"}, 2, "--data is required"},
		{"C = 0", train("--algo", "smo", "--C", "0"), 2, "--C must be"},
		{"C < 0", train("--algo", "smo", "--C", "-1"), 2, "--C must be"},
		{"C = Inf", train("--algo", "smo", "--C", "inf"), 2, "--C must be"},
		{"gamma = 0", train("--algo", "smo", "--gamma", "0"), 2, "--gamma must be"},
		{"gamma < 0", train("--gamma", "-2"), 2, "--gamma must be"},
		{"gamma NaN", train("--gamma", "nan"), 2, "--gamma must be"},
		{"lambda = 0", train("--algo", "pegasos", "--lambda", "0"), 2, "--lambda must be"},
		{"lambda < 0", train("--algo", "nsvm1", "--lambda", "-1e-4"), 2, "--lambda must be"},
		{"mu = 0", train("--algo", "nsvm3", "--mu", "0"), 2, "--mu must be"},
		{"lr < 0", train("--lr", "-0.1"), 2, "--lr must be"},
		{"momentum 1", train("--momentum", "1"), 2, "--momentum"},
		{"weight decay < 0", train("--weight-decay", "-1"), 2, "--weight-decay"},
		{"unknown algo", train("--algo", "svm"), 2, `unknown --algo "svm"`},
		{"unknown nsvm algo", train("--algo", "nsvm5"), 2, `unknown --algo "nsvm5"`},
		{"unknown kernel", train("--algo", "smo", "--kernel", "laplace"), 2, `unknown --kernel "laplace"`},
		{"unknown kernel, nsvm", train("--kernel", "laplace"), 2, `unknown --kernel "laplace"`},
		{"unknown data format", train("--format", "parquet"), 2, `unknown --format "parquet"`},
		{"unknown header mode", train("--header", "maybe"), 2, "--header"},
		{"unknown optimizer", train("--optimizer", "lbfgs"), 2, `unknown --optimizer "lbfgs"`},
		{"unknown schedule", train("--schedule", "warm"), 2, `unknown --schedule "warm"`},
		{"unknown objective", train("--objective", "hinge"), 2, `unknown --objective "hinge"`},
		{"unknown augmentation", train("--augment", "rotate"), 2, `unknown --augment "rotate"`},
		{"augmentation without images", train("--augment", "shift"), 2, `augmentation "shift" needs images`},
		{"unknown test-time augmentation", train("--test-augment", "flip"), 2, `unknown --test-augment "flip"`},
		{"test-time shifts without images", train("--test-augment", "shift"), 2, `test-time augmentation "shift" needs images`},
		{"unknown loss", train("--loss", "hinge"), 2, `unknown --loss "hinge"`},
		{"unknown solver2", train("--solver2", "newton"), 2, `unknown --solver2 "newton"`},
		{"unknown scaling", train("--scaling", "maybe"), 2, "--scaling"},
		{"bad digits", train("--digits", "12"), 2, "--digits"},
		{"bad arch", train("--arch", "dense(40),softmax"), 2, `token 2 "softmax"`},
		{"empty arch token", train("--arch", "dense(4),,relu"), 2, "token 2 is empty"},
		{"arch does not fit the input", train("--arch", "conv(4,3)"), 2, "conv needs"},
		{"bad input shape", train("--input-shape", "4x5"), 2, "--input-shape [4 5]: want one number or three"},
		{"input shape of another size", train("--input-shape", "1x4x4"), 2, "has 16 values"},
		{"input shape not a number", train("--input-shape", "twenty"), 2, "--input-shape must be dimensions such as 1x28x28"},
		{"negative steps", train("--steps", "-5"), 2, "--steps must be ≥ 1"},
		{"zero steps", train("--steps", "0"), 2, "--steps must be ≥ 1"},
		{"negative steps2", train("--steps2", "-1"), 2, "--steps2"},
		{"batch 1 for nsvm4", train("--batch", "1"), 2, "--batch must be ≥ 2"},
		{"batch beyond the data", train("--batch", "100000", "--steps", "3"), 1, "exceeds"},
		{"negative epochs", train("--algo", "perceptron", "--epochs", "-1"), 2, "--epochs"},
		{"degree 0", train("--algo", "smo", "--kernel", "poly", "--degree", "0"), 2, "--degree"},
		{"checkpoint for smo", train("--algo", "smo", "--checkpoint", "{out}/ck"), 2, "--checkpoint and --resume"},
		{"checkpoint-every 0", train("--algo", "nsvm1", "--checkpoint", "{out}/ck", "--checkpoint-every", "0"), 2, "--checkpoint-every"},
		{"missing resume file", train("--algo", "nsvm1", "--resume", in("nope.ck")), 1, "no such file"},
		{"learning rate that diverges", train("--algo", "nsvm4", "--steps", "50", "--lr", "1e8", "--log", "{out}/log"), 1, "not finite"},
		{"data: unknown set", []string{"data", "iris"}, 2, `unknown data set "iris"`},
		{"data: n < 2", []string{"data", "ringnorm", "--n", "1", "--out", "{out}/r.txt"}, 2, "--n must be"},
		{"data: unknown format", []string{"data", "ringnorm", "--format", "arff", "--out", "{out}/r.txt"}, 2, `unknown --format "arff"`},
		{"data: missing --out", []string{"data", "ringnorm"}, 2, "--out is required"},
		{"reproduce: unknown experiment", []string{"reproduce", "iris"}, 2, `unknown experiment "iris"`},
		{"reproduce: bad algo list", []string{"reproduce", "ringnorm", "--algo", "1,5"}, 2, "--algo wants"},
		{"reproduce: seeds 0", []string{"reproduce", "ringnorm", "--seeds", "0"}, 2, "--seeds"},
		{"reproduce: negative steps scale", []string{"reproduce", "ringnorm", "--steps-scale", "-1"}, 2, "--steps-scale"},
		{"reproduce: missing data", []string{"reproduce", "ringnorm", "--data", in("nope.csv"), "--log", "{out}/log"}, 1, "no such file"},
		{"reproduce: input shape without arch", []string{"reproduce", "ringnorm", "--input-shape", "1x20x1"}, 2, "--input-shape goes with --arch"},
		{"reproduce: bad arch", []string{"reproduce", "ringnorm", "--arch", "conv(4,1"}, 2, "missing closing parenthesis"},
		{"reproduce: bad input shape", []string{"reproduce", "ringnorm", "--arch", "conv(4,1)", "--input-shape", "1x20"}, 2, "bad input shape"},
		{"reproduce: input shape of another size", []string{"reproduce", "ringnorm", "--algo", "4", "--seeds", "1", "--arch", "conv(4,1)", "--input-shape", "1x4x4", "--quiet"}, 2, "has 16 values, the data has 20"},
		{"reproduce: coord on MNIST", []string{"reproduce", "mnist01", "--arch", "coord"}, 2, "--arch coord is a Ringnorm network"},
		{"reproduce: dropout on a network without", []string{"reproduce", "ringnorm", "--dropout", "0.3"}, 2, "has no dropout layer"},
		{"reproduce: dropout rate 1", []string{"reproduce", "ringnorm", "--dropout", "1"}, 2, "must be in [0, 1)"},
		{"reproduce: arch that does not fit", []string{"reproduce", "ringnorm", "--algo", "4", "--seeds", "1", "--arch", "conv(4,1)", "--quiet"}, 2, "conv needs a channels×height×width input"},
		{"reproduce: too few rows", []string{"reproduce", "ringnorm", "--data", fx.ring, "--quiet"}, 1, "7400"},
		{"plot: nothing to draw", []string{"plot", "--out", "{out}/p.png"}, 2, "either --log"},
		{"plot: both inputs", []string{"plot", "--log", in("x"), "--model", fx.model, "--out", "{out}/p.png"}, 2, "either --log"},
		{"plot: missing --out", []string{"plot", "--log", in("x")}, 2, "--out is required"},
		{"plot: unknown image type", []string{"plot", "--log", in("x"), "--out", "{out}/p.gif"}, 2, "unknown image type"},
		{"plot: missing log", []string{"plot", "--log", in("nope.log"), "--out", "{out}/p.png"}, 1, "no such file"},
		{"plot: not a log", []string{"plot", "--log", fx.ring, "--out", "{out}/p.png"}, 1, "not a progress record"},
		{"plot: empty log", []string{"plot", "--log", in("empty.txt"), "--out", "{out}/p.png"}, 1, "no progress records"},
		{"plot: 20-D model", []string{"plot", "--model", fx.model, "--data", fx.ring, "--out", "{out}/p.png"}, 1, "2-D inputs"},
		{"plot: grid too small", []string{"plot", "--model", fx.model, "--data", fx.ring, "--grid", "2", "--out", "{out}/p.png"}, 2, "--grid"},
		// Outputs that cannot be written: each must fail before any work.
		{"model in a missing directory", train("--algo", "smo", "--model", "{out}/no/such/dir/m.nsvm"), 1, "does not exist"},
		{"model under a file", train("--algo", "smo", "--model", fx.ring+"/m.nsvm"), 1, "not a directory"},
		{"model is a directory", train("--algo", "smo", "--model", "{out}/adir"), 1, "is a directory"},
		{"model in a read-only directory", train("--algo", "smo", "--model", "{ro}/m.nsvm"), 1, "not writable"},
		{"checkpoint in a missing directory", train("--algo", "nsvm1", "--steps", "50", "--checkpoint", "{out}/no/ck"), 1, "does not exist"},
		{"log in a missing directory", train("--algo", "smo", "--log", "{out}/no/log"), 1, "does not exist"},
		{"predictions in a missing directory", []string{"predict", "--model", fx.model, "--data", fx.ring, "--out", "{out}/no/p.txt"}, 1, "cannot write"},
		{"predictions in a read-only directory", []string{"predict", "--model", fx.model, "--data", fx.ring, "--out", "{ro}/p.txt"}, 1, "cannot write"},
		{"data in a missing directory", []string{"data", "ringnorm", "--n", "10", "--out", "{out}/no/r.txt"}, 1, "cannot write"},
		{"plot in a missing directory", []string{"plot", "--model", fx.model, "--data", fx.ring, "--out", "{out}/no/p.png"}, 1, "does not exist"},
	}
	// Outputs that stay: the log of a run that started and then failed shows
	// the curves up to the failure.
	keep := map[string]string{"learning rate that diverges": "log"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			ro := filepath.Join(t.TempDir(), "ro")
			if err := os.Mkdir(ro, 0o555); err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(c.args, func(a string) bool { return strings.Contains(a, "{ro}") }) && writable(ro) {
				t.Skip("the read-only directory is writable here (running as root)")
			}
			if slices.Contains(c.args, "{out}/adir") {
				if err := os.Mkdir(filepath.Join(out, "adir"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before := listDir(t, out)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.NewReplacer("{out}", out, "{ro}", ro).Replace(a)
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != c.code {
				t.Errorf("exit status %d, want %d", code, c.code)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not exactly one line:\n%s", stderr)
			}
			if !strings.HasPrefix(stderr, "nsvm") {
				t.Errorf("message does not start with nsvm: %q", stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("message %q does not contain %q", stderr, c.want)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
				t.Errorf("message looks like a crash: %q", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty: %q", stdout)
			}
			if k := keep[c.name]; k != "" {
				before = append(before, k)
				slices.Sort(before)
			}
			if after := listDir(t, out); !slices.Equal(after, before) {
				t.Errorf("files left behind: %v", after)
			}
			if after := listDir(t, ro); len(after) != 0 {
				t.Errorf("files left in the read-only directory: %v", after)
			}
			t.Log(strings.TrimSpace(stderr))
		})
	}
	if after := listDir(t, fx.dir); !slices.Equal(after, inputsBefore) {
		t.Errorf("the input directory changed: %v, was %v", after, inputsBefore)
	}
}

// writable reports whether a file can be created in dir.
func writable(dir string) bool {
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// decodeOne decodes stdout as exactly one JSON object.
func decodeOne(t *testing.T, stdout string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		t.Fatalf("stdout holds more than one JSON value: %s", stdout)
	}
	return m
}

func hasKeys(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON output %v lacks %q", m, k)
		}
	}
}

// TestTrainEvalPredict trains a classical SVM and an NSVM on generated
// Ringnorm, evaluates them on fresh data and predicts.
func TestTrainEvalPredict(t *testing.T) {
	dir := t.TempDir()
	trainPath, testPath := filepath.Join(dir, "train.txt"), filepath.Join(dir, "test.txt")
	mustRun(t, "data", "ringnorm", "--n", "400", "--seed", "1", "--out", trainPath)
	mustRun(t, "data", "ringnorm", "--n", "300", "--seed", "2", "--out", testPath)
	for _, c := range []struct {
		algo   string
		args   []string
		minAcc float64
	}{
		{"smo", []string{"--gamma", "0.02", "--C", "10"}, 0.9},
		{"nsvm4", []string{"--steps", "100", "--steps2", "2000"}, 0.7},
		{"nsvm1", []string{"--steps", "300"}, 0.5},
	} {
		t.Run(c.algo, func(t *testing.T) {
			model := filepath.Join(dir, c.algo+".nsvm")
			args := append([]string{"train", "--data", trainPath, "--model", model, "--algo", c.algo, "--json"}, c.args...)
			tr := decodeOne(t, mustRun(t, args...))
			hasKeys(t, tr, "train_seconds", "n_sv", "n", "algo", "train_accuracy", "model")
			if tr["n"] != 400.0 || !(tr["n_sv"].(float64) > 0) || tr["algo"] != c.algo {
				t.Errorf("train output %v", tr)
			}
			ev := decodeOne(t, mustRun(t, "eval", "--model", model, "--data", testPath, "--json"))
			hasKeys(t, ev, "accuracy", "errors", "n")
			acc, errs, n := ev["accuracy"].(float64), ev["errors"].(float64), ev["n"].(float64)
			if n != 300 || math.Abs(acc-(n-errs)/n) > 1e-12 {
				t.Errorf("eval output %v is inconsistent", ev)
			}
			if acc < c.minAcc {
				t.Errorf("test accuracy %.3f < %.2f", acc, c.minAcc)
			}
			t.Logf("%s: test accuracy %.3f, %v support vectors", c.algo, acc, tr["n_sv"])
			// The text report says the same.
			text := mustRun(t, "eval", "--model", model, "--data", testPath)
			if !strings.HasPrefix(text, fmt.Sprintf("accuracy %.4f%%", 100*acc)) {
				t.Errorf("eval text %q", text)
			}
			// predict: one "label decision" line per row, agreeing with eval.
			pred := mustRun(t, "predict", "--model", model, "--data", testPath)
			test, err := data.Open(testPath, data.OpenOptions{Dim: 20})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(pred), "\n")
			if len(lines) != test.N {
				t.Fatalf("%d prediction lines for %d rows", len(lines), test.N)
			}
			wrong := 0
			labelOf := map[bool]float64{} // the label printed for dec ≥ 0 and dec < 0
			for i, l := range lines {
				f := strings.Fields(l)
				if len(f) != 2 {
					t.Fatalf("line %d: %q", i+1, l)
				}
				lab, err1 := strconv.ParseFloat(f[0], 64)
				dec, err2 := strconv.ParseFloat(f[1], 64)
				if err1 != nil || err2 != nil || math.IsNaN(dec) || math.IsInf(dec, 0) {
					t.Fatalf("line %d: %q", i+1, l)
				}
				if prev, ok := labelOf[dec >= 0]; ok && prev != lab {
					t.Fatalf("line %d: label %v for decision %v, earlier %v", i+1, lab, dec, prev)
				}
				labelOf[dec >= 0] = lab
				if lab != test.Y[i] {
					wrong++
				}
			}
			if float64(wrong) != errs {
				t.Errorf("predict disagrees with eval: %d wrong, eval says %v", wrong, errs)
			}
			// predict --out writes the same lines to a file.
			out := filepath.Join(dir, c.algo+".pred")
			if s := mustRun(t, "predict", "--model", model, "--data", testPath, "--out", out); s != "" {
				t.Errorf("predict --out printed %q", s)
			}
			b, err := os.ReadFile(out)
			if err != nil || string(b) != pred {
				t.Errorf("predict --out wrote something else (%v)", err)
			}
		})
	}
}

// TestDataRingnorm checks that generated data reads back in both formats.
func TestDataRingnorm(t *testing.T) {
	out := mustRun(t, "data", "ringnorm", "--n", "50", "--seed", "7", "--out", "-")
	ds, err := data.ReadLIBSVM(strings.NewReader(out), "stdout", 0)
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 50 || ds.D != 20 {
		t.Fatalf("read %d×%d, want 50×20", ds.N, ds.D)
	}
	if _, _, err := ds.BinaryLabels(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.csv")
	mustRun(t, "data", "ringnorm", "--n", "50", "--seed", "7", "--format", "csv", "--out", path)
	csv, err := data.Open(path, data.OpenOptions{CSV: data.CSVOptions{LabelCol: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if csv.N != 50 || csv.D != 20 || !slices.Equal(csv.Y, ds.Y) {
		t.Fatalf("CSV %d×%d with labels %v, LIBSVM labels %v", csv.N, csv.D, csv.Y[:5], ds.Y[:5])
	}
	for i, v := range csv.X {
		if math.Abs(float64(v-ds.X[i])) > 1e-6*(1+math.Abs(float64(v))) {
			t.Fatalf("value %d: CSV %v, LIBSVM %v", i, v, ds.X[i])
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("data file mode %v, want 0644 (%v)", fi.Mode().Perm(), err)
	}
}

// TestHelp: -h prints the usage once and succeeds.
func TestHelp(t *testing.T) {
	for _, cmd := range []string{"train", "predict", "eval", "plot"} {
		_, stderr, code := runCLI(t, cmd, "-h")
		if code != 0 || strings.Count(stderr, "Usage:") != 1 || !strings.Contains(stderr, "-data") {
			t.Errorf("%s -h: exit %d, usage printed %d times", cmd, code, strings.Count(stderr, "Usage:"))
		}
	}
	// The usage asks each flag's value type for its default: none panics.
	for _, c := range commands {
		if _, stderr, _ := runCLI(t, c.name, "-h"); strings.Contains(stderr, "panic") {
			t.Errorf("%s -h: %s", c.name, stderr[strings.Index(stderr, "panic"):])
		}
	}
	if out, _, code := runCLI(t, "help"); code != 0 || !strings.Contains(out, "plot") {
		t.Errorf("help: exit %d: %q", code, out)
	}
}

// twoD writes a 2-D two-class data set: class 1 a wide Gaussian around 0,
// class −1 a narrow one around (1, 1), like Ringnorm in the plane.
func twoD(t *testing.T, path string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&b, "1 1:%.5f 2:%.5f\n", 2*rng.NormFloat64(), 2*rng.NormFloat64())
		} else {
			fmt.Fprintf(&b, "-1 1:%.5f 2:%.5f\n", 1+rng.NormFloat64(), 1+rng.NormFloat64())
		}
	}
	writeFile(t, path, b.String())
}

// checkPNG checks that path holds a decodable PNG of the given size.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(bufio.NewReader(f))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s is %d×%d, want %d×%d", path, b.Dx(), b.Dy(), w, h)
	}
	// Not blank: some pixels differ from the first.
	first := img.At(0, 0)
	differ := 0
	for y := 0; y < h; y += 7 {
		for x := 0; x < w; x += 7 {
			if img.At(x, y) != first {
				differ++
			}
		}
	}
	if differ < 50 {
		t.Fatalf("%s looks blank", path)
	}
}

// TestLogAndPlot trains with --log, checks the JSON lines, and draws the
// curves and the decision boundaries of a classical and a neural model.
func TestLogAndPlot(t *testing.T) {
	dir := t.TempDir()
	pts := filepath.Join(dir, "two.txt")
	twoD(t, pts, 200)
	for _, c := range []struct {
		algo   string
		args   []string
		panels []string
		marked bool // whether the support vectors can be marked
	}{
		{"smo", []string{"--gamma", "0.5"}, []string{"solver #SV"}, true},
		{"nsvm4", []string{"--steps", "60", "--steps2", "1000"}, []string{"loss", "alignment", "solver #SV"}, true},
		{"nsvm1", []string{"--steps", "400"}, []string{"violation rate", "#SV"}, false},
		{"nsvm3", []string{"--steps", "300"}, []string{"violation rate", "loss", "alignment", "#SV"}, true},
	} {
		t.Run(c.algo, func(t *testing.T) {
			model, logPath := filepath.Join(dir, c.algo+".nsvm"), filepath.Join(dir, c.algo+".log")
			args := append([]string{"train", "--data", pts, "--model", model, "--algo", c.algo, "--log", logPath, "--quiet"}, c.args...)
			mustRun(t, args...)
			b, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(lines) < 2 {
				t.Fatalf("log has %d lines", len(lines))
			}
			lastStep := -1
			for i, l := range lines {
				var rec map[string]any
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatalf("log line %d: %v", i+1, err)
				}
				hasKeys(t, rec, "run", "step", "total", "phase", "violation_rate", "n_sv", "alignment", "loss", "elapsed_seconds")
				if rec["phase"] == "train" {
					if s := int(rec["step"].(float64)); s <= lastStep {
						t.Fatalf("log line %d: step %d after %d", i+1, s, lastStep)
					} else {
						lastStep = s
					}
				}
			}
			curves := filepath.Join(dir, c.algo+"-curves.png")
			out := mustRun(t, "plot", "--log", logPath, "--out", curves, "--width", "500")
			if !strings.Contains(out, "panels: "+strings.Join(c.panels, ", ")) {
				t.Errorf("plot --log: %q, want panels %v", out, c.panels)
			}
			checkPNG(t, curves, 500, 260*len(c.panels))
			boundary := filepath.Join(dir, c.algo+"-boundary.png")
			out = mustRun(t, "plot", "--model", model, "--data", pts, "--out", boundary, "--grid", "60", "--width", "450", "--height", "400")
			if c.marked == strings.Contains(out, " 0 support vectors marked") {
				t.Errorf("plot --model: %q", out)
			}
			checkPNG(t, boundary, 450, 400)
			t.Log(strings.TrimSpace(out))
		})
	}
	// SVG and PDF by the file name.
	for _, ext := range []string{"svg", "pdf"} {
		p := filepath.Join(dir, "curves."+ext)
		mustRun(t, "plot", "--log", filepath.Join(dir, "nsvm4.log"), "--out", p)
		if fi, err := os.Stat(p); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestReproduceArch runs Algorithm 4 with a per-coordinate network on
// Ringnorm rows seen as 1×20×1 images, given as a spec and by name; the JSON
// names the network and the shape it used.
func TestReproduceArch(t *testing.T) {
	spec := "conv(8,1),relu,conv(2,1),flatten,dense(20),relu"
	for _, tc := range []struct {
		name, arch string
		args       []string
	}{
		{"spec", spec, []string{"--arch", spec, "--input-shape", "1x20x1"}},
		{"coord", nn.RingnormCoordArch, []string{"--arch", "coord"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"reproduce", "ringnorm", "--algo", "4", "--seeds", "2", "--steps-scale", "0.1", "--json"}, tc.args...)
			res := decodeOne(t, mustRun(t, args...))
			rs := res["results"].([]any)
			if len(rs) != 1 {
				t.Fatalf("results %v", rs)
			}
			r := rs[0].(map[string]any)
			cfg := r["config"].(map[string]any)
			if cfg["arch"] != tc.arch {
				t.Errorf("config arch %v, want %q", cfg["arch"], tc.arch)
			}
			if got := fmt.Sprint(cfg["input_shape"]); got != "[1 20 1]" {
				t.Errorf("config input_shape %s, want [1 20 1]", got)
			}
			if acc := r["accuracy_mean"].(float64); acc < 0.9 {
				t.Errorf("accuracy %.4f at a tenth of the steps, want ≥ 0.9", acc)
			}
		})
	}
}

// TestReproduceLog runs a tiny reproduction with --log and plots its runs.
func TestReproduceLog(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "r.log")
	out := mustRun(t, "reproduce", "ringnorm", "--algo", "3,4", "--seeds", "2", "--steps-scale", "0.01", "--log", logPath, "--json")
	res := decodeOne(t, out)
	if len(res["results"].([]any)) != 2 {
		t.Fatalf("results %v", res["results"])
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"ringnorm alg 3 seed 1", "ringnorm alg 3 seed 2", "ringnorm alg 4 seed 1", "ringnorm alg 4 seed 2"} {
		if !strings.Contains(string(b), `"run":"`+run+`"`) {
			t.Errorf("log has no records of %q", run)
		}
	}
	png := filepath.Join(dir, "r.png")
	out = mustRun(t, "plot", "--log", logPath, "--out", png)
	if !strings.Contains(out, "4 run(s)") {
		t.Errorf("plot: %q", out)
	}
	checkPNG(t, png, 1120, 260*5) // two columns (Algorithms 3, 4); violation rate, loss, alignment, #SV, solver #SV
}
