package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/paper"
)

// TestMulticlassAlg3TrainEvalPredict: train --algo nsvm3 on three classes
// runs the joint one-vs-rest Algorithm 3; the model is a three-head
// one-vs-rest model that eval and predict use as any multiclass model.
func TestMulticlassAlg3TrainEvalPredict(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.txt"), filepath.Join(dir, "test.txt")
	blobs3(t, train, 300, 1)
	blobs3(t, test, 150, 2)
	model := filepath.Join(dir, "m.nsvm")
	args := []string{"train", "--data", train, "--model", model, "--quiet", "--algo", "nsvm3",
		"--arch", "dense(8),relu", "--steps", "150", "--batch", "16", "--lr", "1e-3"}
	out := mustRun(t, args...)
	if !strings.Contains(out, "trained nsvm3") {
		t.Fatalf("train printed %q", out)
	}
	m, err := nsvm.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Multiclass() || m.Scheme != nsvm.OneVsRest || len(m.Heads) != 3 || m.Algorithm != "nsvm3" || m.Info["joint"] != "true" {
		t.Fatalf("model: algorithm %s, scheme %q, %d heads, info %v", m.Algorithm, m.Scheme, len(m.Heads), m.Info)
	}
	js := decodeOne(t, mustRun(t, "eval", "--model", model, "--data", test, "--json"))
	if acc := js["accuracy"].(float64); acc < 0.95 {
		t.Errorf("test accuracy %.3f", acc)
	}
	if c := js["confusion"].([]any); len(c) != 3 || len(c[0].([]any)) != 3 {
		t.Errorf("confusion %v", c)
	}
	pred := strings.Split(strings.TrimSpace(mustRun(t, "predict", "--model", model, "--data", test)), "\n")
	if len(pred) != 150 {
		t.Fatalf("%d prediction lines", len(pred))
	}
	for _, l := range pred {
		if f := strings.Fields(l); len(f) != 2 || (f[0] != "1" && f[0] != "5" && f[0] != "9") {
			t.Fatalf("prediction line %q", l)
		}
	}
	// --balanced is recorded in the model.
	bal := filepath.Join(dir, "bal.nsvm")
	mustRun(t, append(args[:4:4], append([]string{bal, "--balanced"}, args[5:]...)...)...)
	if mb, err := nsvm.Load(bal); err != nil || mb.Info["balanced"] != "true" {
		t.Fatalf("balanced model: %v, %+v", err, mb)
	}
	if js := decodeOne(t, mustRun(t, "eval", "--model", bal, "--data", test, "--json")); js["accuracy"].(float64) < 0.95 {
		t.Errorf("balanced: test accuracy %v", js["accuracy"])
	}
	// Same flags, same model file.
	again := filepath.Join(dir, "again.nsvm")
	mustRun(t, append(args[:4:4], append([]string{again}, args[5:]...)...)...)
	a, _ := os.ReadFile(model)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same flags wrote different model files")
	}
}

// TestMulticlassAlg3Resume: a run continued from a checkpoint ends with the
// model of the uninterrupted run.
func TestMulticlassAlg3Resume(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.txt")
	blobs3(t, train, 120, 3)
	base := []string{"train", "--data", train, "--quiet", "--algo", "nsvm3", "--arch", "dense(6),relu",
		"--batch", "8", "--lr", "1e-3", "--bias"}
	full, part, resumed, ck := filepath.Join(dir, "full"), filepath.Join(dir, "part"), filepath.Join(dir, "resumed"), filepath.Join(dir, "ck")
	mustRun(t, append(base, "--model", full, "--steps", "60")...)
	// A shorter run leaves its last periodic checkpoint at step 40; the
	// step count is not part of the configuration, so it resumes to 60.
	mustRun(t, append(base, "--model", part, "--steps", "45", "--checkpoint", ck, "--checkpoint-every", "20")...)
	c, err := paper.LoadCheckpoint(ck)
	if err != nil || c.Step != 40 {
		t.Fatalf("checkpoint at step %v: %v", c, err)
	}
	mustRun(t, append(base, "--model", resumed, "--steps", "60", "--resume", ck)...)
	a, _ := os.ReadFile(full)
	b, _ := os.ReadFile(resumed)
	if !bytes.Equal(a, b) {
		t.Error("the resumed run wrote a different model than the uninterrupted one")
	}
	// A binary nsvm3 run on two of the classes does not take the checkpoint.
	two := filepath.Join(dir, "two.txt")
	raw, _ := os.ReadFile(train)
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if !strings.HasPrefix(l, "9 ") {
			keep = append(keep, l)
		}
	}
	writeFile(t, two, strings.Join(keep, "\n")+"\n")
	_, errs, code := runCLI(t, "train", "--data", two, "--quiet", "--algo", "nsvm3", "--arch", "dense(6),relu",
		"--batch", "8", "--lr", "1e-3", "--bias", "--model", filepath.Join(dir, "bin"), "--steps", "60", "--resume", ck)
	if code == 0 || !strings.Contains(errs, "configuration") {
		t.Errorf("binary run resumed a joint checkpoint: exit %d, %q", code, errs)
	}
}

func TestMulticlassAlg3Refused(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.txt")
	blobs3(t, train, 60, 4)
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"ovo", []string{"--algo", "nsvm3", "--multiclass", "ovo"}, 2, []string{"ovr only", "nsvm4"}},
		{"nsvm1", []string{"--algo", "nsvm1"}, 1, []string{"3 classes", "nsvm3"}},
		{"nsvm2", []string{"--algo", "nsvm2"}, 1, []string{"3 classes", "nsvm3"}},
		{"balanced with nsvm4", []string{"--algo", "nsvm4", "--balanced"}, 2, []string{"--balanced", "nsvm3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, c.name+".nsvm")
			_, errs, code := runCLI(t, append([]string{"train", "--data", train, "--model", model, "--quiet", "--steps", "5"}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d (%q)", code, c.code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("message %q lacks %q", errs, w)
				}
			}
			if _, err := os.Stat(model); err == nil {
				t.Error("a refused run left a model file")
			}
		})
	}
}
