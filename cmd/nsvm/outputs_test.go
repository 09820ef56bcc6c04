package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nsvm-go/nsvm/internal/atomicfile/devtest"
	"github.com/nsvm-go/nsvm/internal/safetensors"
)

// failingWriter fails every write, as stdout on a full disk does.
type failingWriter struct{ writes int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	return 0, syscall.ENOSPC
}

// TestStdoutErrorsFail: a command whose output cannot be written to stdout
// fails, with one line naming the error, whether or not it checked its
// writes (eval, train --cv and data --out - wrote to /dev/full with exit 0).
func TestStdoutErrorsFail(t *testing.T) {
	fx := newFixtures(t)
	plain := filepath.Join(t.TempDir(), "plain.nsvm")
	mustRun(t, "train", "--data", fx.ring, "--model", plain, "--algo", "smo", "--scaling", "none", "--quiet")
	for _, args := range [][]string{
		{"eval", "--model", fx.model, "--data", fx.ring},
		{"eval", "--model", fx.model, "--data", fx.ring, "--json"},
		{"train", "--cv", "3", "--data", fx.ring, "--algo", "smo", "--quiet"},
		{"predict", "--model", fx.model, "--data", fx.ring},
		{"data", "ringnorm", "--n", "10", "--out", "-"},
		{"export", "--model", plain, "--out", "-"},
		{"version"},
	} {
		t.Run(strings.Join(args[:1], " "), func(t *testing.T) {
			var w failingWriter
			var stderr bytes.Buffer
			err := run(context.Background(), args, strings.NewReader(""), &w, &stderr)
			code := exitStatus(err, &stderr)
			if code == 0 || w.writes == 0 {
				t.Fatalf("nsvm %s with a failing stdout: exit %d after %d writes", strings.Join(args, " "), code, w.writes)
			}
			if msg := stderr.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "no space left on device") {
				t.Fatalf("stderr: %q", msg)
			}
		})
	}
}

// TestOutputsOnDevices: outputs to a device are written to it, not renamed
// over it: a full device fails every output with "no space left on device",
// exit 1, and stays a device (as root, each of these replaced it with a
// regular file and exited 0).
func TestOutputsOnDevices(t *testing.T) {
	fx := newFixtures(t)
	full := devtest.Full(t)
	plain := filepath.Join(t.TempDir(), "plain.nsvm")
	mustRun(t, "train", "--data", fx.ring, "--model", plain, "--algo", "smo", "--scaling", "none", "--quiet")
	// data convert takes the format from OUT's name: a link to the device.
	dir := t.TempDir()
	csv := filepath.Join(dir, "full.csv")
	if err := os.Symlink(full, csv); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"train", []string{"train", "--data", fx.ring, "--model", full, "--algo", "smo", "--quiet"}},
		{"train nsvm", []string{"train", "--data", fx.ring, "--model", full, "--algo", "nsvm4", "--steps", "5", "--steps2", "50", "--quiet"}},
		{"predict", []string{"predict", "--model", fx.model, "--data", fx.ring, "--out", full}},
		{"data ringnorm", []string{"data", "ringnorm", "--n", "10", "--out", full}},
		{"data convert", []string{"data", "convert", fx.ring, csv}},
		{"export", []string{"export", "--model", plain, "--out", full}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, c.args...)
			if code != 1 || !strings.Contains(stderr, "no space left on device") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 1 and no space left on device", code, stderr)
			}
			if strings.Contains(stderr, ".nsvm-tmp-") {
				t.Errorf("the message names a temporary file: %q", stderr)
			}
			if !devtest.IsDevice(full) {
				t.Fatalf("%s is no longer a device", full)
			}
		})
	}
	if li, err := os.Lstat(csv); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link to the device was replaced: %v", err)
	}
}

// TestOutputThroughSymlink: --model through a symbolic link writes the
// link's target, keeps the link and the target's mode 0600 (it replaced
// the link with a 0644 file).
func TestOutputThroughSymlink(t *testing.T) {
	fx := newFixtures(t)
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.nsvm"), filepath.Join(dir, "link.nsvm")
	writeFile(t, real, "old")
	if err := os.Chmod(real, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.nsvm", link); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "train", "--data", fx.ring, "--model", link, "--algo", "smo", "--quiet")
	li, err := os.Lstat(link)
	if err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", li.Mode(), err)
	}
	ri, err := os.Stat(real)
	if err != nil || ri.Mode().Perm() != 0o600 || ri.Size() < 100 {
		t.Fatalf("the target: %v, %d bytes, %v; want the model, mode 0600", ri.Mode(), ri.Size(), err)
	}
	mustRun(t, "eval", "--model", link, "--data", fx.ring)
	if names := tempsIn(t, dir); len(names) != 0 {
		t.Fatalf("temporary files left: %v", names)
	}
}

// tempsIn lists the temporary files of atomicfile in dir.
func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, ".*.nsvm-tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestOutputIsAnInput: a command refuses to write an output that is one of
// its inputs, by name, through a symbolic link or a hard link, with one
// line, exit 2, and the input untouched (train and predict overwrote it).
func TestOutputIsAnInput(t *testing.T) {
	fx := newFixtures(t)
	dir := t.TempDir()
	same := filepath.Join(dir, "same.libsvm")
	orig, err := os.ReadFile(fx.ring)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, same, string(orig))
	sym, hard, png := filepath.Join(dir, "sym.libsvm"), filepath.Join(dir, "hard.libsvm"), filepath.Join(dir, "p.png")
	for _, l := range []string{sym, png} {
		if err := os.Symlink("same.libsvm", l); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(same, hard); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.nsvm")
	mustRun(t, "train", "--data", same, "--model", model, "--algo", "smo", "--quiet")
	modelBytes, _ := os.ReadFile(model)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"train --model = --data", []string{"train", "--data", same, "--model", same, "--algo", "smo", "--quiet"}, "--model " + same + " is the same file as the input --data"},
		{"train through a symlink", []string{"train", "--data", same, "--model", sym, "--algo", "smo", "--quiet"}, "is the same file as the input --data"},
		{"train through a hard link", []string{"train", "--data", hard, "--model", same, "--algo", "smo", "--quiet"}, "is the same file as the input --data"},
		{"train --log = --data", []string{"train", "--data", same, "--log", same, "--algo", "smo", "--quiet", "--model", filepath.Join(dir, "x")}, "--log"},
		{"train --checkpoint = --model", []string{"train", "--data", same, "--model", filepath.Join(dir, "o"), "--checkpoint", filepath.Join(dir, "o"), "--algo", "nsvm1"}, "name the same file"},
		{"train --model = --resume", []string{"train", "--data", same, "--model", model, "--resume", model, "--algo", "nsvm1"}, "the input --resume"},
		{"predict --out = --data", []string{"predict", "--data", same, "--model", model, "--out", same}, "--out " + same + " is the same file as the input --data"},
		{"predict --out = --model", []string{"predict", "--data", same, "--model", model, "--out", model}, "the input --model"},
		{"predict through a hard link", []string{"predict", "--data", same, "--model", model, "--out", hard}, "the input --data"},
		{"export --out = --model", []string{"export", "--model", model, "--out", model}, "the input --model"},
		{"data convert through a link", []string{"data", "convert", same, sym}, "the same file as the input IN"},
		{"plot --out = --log", []string{"plot", "--log", same, "--out", png}, "the input --log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.args...)
			if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, c.want)
			}
			if b, _ := os.ReadFile(same); !bytes.Equal(b, orig) {
				t.Fatalf("the input was changed")
			}
			if b, _ := os.ReadFile(model); !bytes.Equal(b, modelBytes) {
				t.Fatalf("the model was changed")
			}
			if names := tempsIn(t, dir); len(names) != 0 {
				t.Fatalf("temporary files left: %v", names)
			}
		})
	}
	// Resuming from the checkpoint the run goes on writing is no conflict.
	if err := checkOutputs("train", []file{{"--checkpoint", "ck"}}, nil); err != nil {
		t.Fatal(err)
	}
	f := trainFlags{checkpoint: filepath.Join(dir, "ck"), resume: filepath.Join(dir, "ck"), model: model}
	f.Path = same
	if err := f.checkOutputs(); err != nil {
		t.Fatalf("--checkpoint = --resume: %v", err)
	}
}

// TestLogKeepsTheOldOne: a run that fails before its first record leaves
// an earlier log as it was (it emptied it), and a log that is written
// replaces it through a temporary file, keeping its mode.
func TestLogKeepsTheOldOne(t *testing.T) {
	fx := newFixtures(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "run.jsonl")
	writeFile(t, logPath, "the earlier run\n")
	if err := os.Chmod(logPath, 0o600); err != nil {
		t.Fatal(err)
	}
	// A run that fails after opening the log: its checkpoint is not one.
	_, stderr, code := runCLI(t, "train", "--data", fx.ring, "--model", filepath.Join(dir, "m"), "--algo", "nsvm1", "--steps", "50", "--resume", fx.ring, "--log", logPath, "--quiet")
	if code == 0 {
		t.Fatalf("resumed from a data file: %s", stderr)
	}
	if b, _ := os.ReadFile(logPath); string(b) != "the earlier run\n" {
		t.Fatalf("the earlier log became %q", b)
	}
	mustRun(t, "train", "--data", fx.ring, "--model", filepath.Join(dir, "m"), "--algo", "nsvm4", "--steps", "5", "--steps2", "50", "--log", logPath, "--quiet")
	b, _ := os.ReadFile(logPath)
	fi, _ := os.Stat(logPath)
	if !strings.Contains(string(b), `"phase":"train"`) || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new log: mode %v, %q", fi.Mode(), b)
	}
	if names := tempsIn(t, dir); len(names) != 0 {
		t.Fatalf("temporary files left: %v", names)
	}
}

// TestModelIntegrity: a model file with a flipped bit is refused (it
// predicted differently, exit 0); one written before model files carried a
// checksum predicts with a one-line notice.
func TestModelIntegrity(t *testing.T) {
	fx := newFixtures(t)
	b, err := os.ReadFile(fx.model)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.nsvm")
	c := bytes.Clone(b)
	c[len(c)-100] ^= 0x04
	writeFile(t, bad, string(c))
	_, stderr, code := runCLI(t, "eval", "--model", bad, "--data", fx.ring)
	if code != 1 || stderr != "nsvm: "+bad+": the model file is corrupt: checksum mismatch\n" {
		t.Fatalf("a flipped bit: exit %d, %q", code, stderr)
	}
	f, err := safetensors.Read(bytes.NewReader(b), int64(len(b)))
	if err != nil || !f.Checked {
		t.Fatalf("the model: %v, checked %v", err, f != nil && f.Checked)
	}
	var ts []safetensors.Tensor
	for _, n := range f.Names() {
		ts = append(ts, f.Tensors[n])
	}
	var old bytes.Buffer
	if err := safetensors.Write(&old, f.Metadata, ts); err != nil {
		t.Fatal(err)
	}
	oldPath := filepath.Join(dir, "old.nsvm")
	writeFile(t, oldPath, old.String())
	stdout, stderr, code := runCLI(t, "eval", "--model", oldPath, "--data", fx.ring)
	want, _, _ := runCLI(t, "eval", "--model", fx.model, "--data", fx.ring)
	if code != 0 || stdout != want || stderr != "nsvm eval: notice: "+oldPath+" carries no checksum (an older model file); its contents are not verified\n" {
		t.Fatalf("a model without a checksum: exit %d, stderr %q", code, stderr)
	}
}

// TestResumeChecks: --resume refuses a checkpoint of another seed, of
// other data, or with a flipped bit, in one line naming which (each
// resumed before).
func TestResumeChecks(t *testing.T) {
	fx := newFixtures(t)
	dir := t.TempDir()
	ck, other := filepath.Join(dir, "ck"), filepath.Join(dir, "other.txt")
	train := func(data string, extra ...string) []string {
		return append([]string{"train", "--data", data, "--model", filepath.Join(dir, "m.nsvm"), "--algo", "nsvm1", "--steps", "400", "--quiet"}, extra...)
	}
	mustRun(t, train(fx.ring, "--checkpoint", ck, "--checkpoint-every", "100")...)
	mustRun(t, "data", "ringnorm", "--n", "200", "--seed", "4", "--out", other)
	b, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	flipped := filepath.Join(dir, "flipped")
	b[len(b)/2] ^= 0x20
	writeFile(t, flipped, string(b))
	for _, c := range []struct {
		args []string
		want string
	}{
		{train(fx.ring, "--resume", ck, "--seed", "2"), "checkpoint was made with seed 1, not 2"},
		{train(other, "--resume", ck), "checkpoint was made on other training data"},
		{train(fx.ring, "--resume", ck, "--lr", "0.5"), "different configuration: Opt.LR"},
		{train(fx.ring, "--resume", flipped), "the checkpoint file is corrupt: checksum mismatch"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code == 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("nsvm %s: exit %d, %q; want %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	mustRun(t, train(fx.ring, "--resume", ck)...)
}

// TestOutputsCheckedFirst: a model or checkpoint that cannot be written
// fails train before its data is read (a large file is not read in vain),
// in memory and streamed alike; --cv writes no model and checks none.
func TestOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-data.csv")
	for _, args := range [][]string{
		{"train", "--data", missing, "--model", filepath.Join(dir, "no", "m.nsvm")},
		{"train", "--data", missing, "--model", filepath.Join(dir, "no", "m.nsvm"), "--stream"},
		{"train", "--data", missing, "--model", filepath.Join(dir, "m.nsvm"), "--algo", "nsvm1", "--checkpoint", filepath.Join(dir, "no", "ck")},
	} {
		_, stderr, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(stderr, "does not exist") || strings.Contains(stderr, "no-such-data") {
			t.Errorf("%v: exit %d, %q: want the output's error before the data's", args[5:], code, stderr)
		}
	}
	_, stderr, code := runCLI(t, "train", "--data", missing, "--model", filepath.Join(dir, "no", "m.nsvm"), "--cv", "3")
	if code == 0 || !strings.Contains(stderr, "no-such-data") {
		t.Errorf("--cv: exit %d, %q: want the data's error", code, stderr)
	}
}
