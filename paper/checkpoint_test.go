package paper

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/internal/safetensors"
)

// midwayCheckpoint runs Algorithm alg on p for steps steps with seed, writes
// a checkpoint at a fifth of them and returns its file.
func midwayCheckpoint(t testing.TB, alg int, p Problem, steps int, seed uint64) string {
	t.Helper()
	pr, _ := RingnormPreset(alg)
	pr.Config().T = steps
	pr.Alg4.Part2.T = 50
	path := filepath.Join(t.TempDir(), "ck")
	o := Options{Seed: seed, CheckpointEvery: steps / 5, Checkpoint: func(c *Checkpoint) error {
		if c.Step != steps/5 {
			return nil
		}
		return c.Save(path)
	}}
	if _, err := trainPreset(context.Background(), pr, newNet(t, pr.Arch, p.D, 3), p, o); err != nil {
		t.Fatal(err)
	}
	return path
}

// resumeFrom resumes Algorithm alg from the checkpoint file path.
func resumeFrom(t testing.TB, alg int, p Problem, steps int, seed uint64, path string, edit func(pr *Preset)) error {
	t.Helper()
	ck, err := LoadCheckpoint(path)
	if err != nil {
		return err
	}
	pr, _ := RingnormPreset(alg)
	pr.Config().T = steps
	pr.Alg4.Part2.T = 50
	if edit != nil {
		edit(&pr)
	}
	_, err = trainPreset(context.Background(), pr, newNet(t, pr.Arch, p.D, 999), p, Options{Seed: seed, Resume: ck})
	return err
}

// TestResumeRefusesOtherRuns: a checkpoint resumes only the run it was made
// of: other data (one value, one label), another seed, another
// configuration, a flipped bit or the previous format are refused with an
// error naming which differs (all but the format resumed before).
func TestResumeRefusesOtherRuns(t *testing.T) {
	p, _ := ringnormProblem(t, 200, 10, 5)
	for _, alg := range []int{1, 4} {
		steps := map[int]int{1: 200, 4: 20}[alg]
		ck := midwayCheckpoint(t, alg, p, steps, 11)
		if err := resumeFrom(t, alg, p, steps, 11, ck, nil); err != nil {
			t.Fatalf("alg %d: the same run does not resume: %v", alg, err)
		}
		value := p
		value.X = append([]float32(nil), p.X...)
		value.X[17] += 0.5
		label := p
		label.Y = append([]float32(nil), p.Y...)
		label.Y[3] = -label.Y[3]
		for _, c := range []struct {
			name string
			p    Problem
			seed uint64
			edit func(*Preset)
			want string
		}{
			{"one value", value, 11, nil, "other training data"},
			{"one label", label, 11, nil, "other training data"},
			{"seed", p, 12, nil, "seed 11, not 12"},
			{"learning rate", p, 11, func(pr *Preset) { pr.Config().Opt.LR *= 2 }, "configuration: Opt.LR"},
		} {
			err := resumeFrom(t, alg, c.p, steps, c.seed, ck, c.edit)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("alg %d, other %s: %v, want an error about %q", alg, c.name, err, c.want)
			}
			t.Log(err)
		}
	}
}

// TestCheckpointBitFlips: every single flipped bit of a checkpoint's
// length and header, and a sample of those of its data, is refused (a
// checkpoint with a flipped bit resumed before).
func TestCheckpointBitFlips(t *testing.T) {
	p, _ := ringnormProblem(t, 60, 10, 5)
	b, err := os.ReadFile(midwayCheckpoint(t, 4, p, 10, 11))
	if err != nil {
		t.Fatal(err)
	}
	head := 8 + int(binary.LittleEndian.Uint64(b))
	stride := 1
	if testing.Short() {
		stride = 13
	}
	var flips []int
	for i := 0; i < 8*head; i += stride {
		flips = append(flips, i)
	}
	for i := 8 * head; i < 8*len(b); i += 8*(len(b)-head)/500 + 1 {
		flips = append(flips, i)
	}
	flips = append(flips, 8*len(b)-1)
	corrupt := 0
	for _, i := range flips {
		c := bytes.Clone(b)
		c[i/8] ^= 1 << (i % 8)
		f, err := safetensors.Read(bytes.NewReader(c), int64(len(c)))
		if err == nil {
			_, err = decodeCheckpoint(f, "ck")
		}
		if err == nil {
			t.Fatalf("byte %d bit %d flipped: the checkpoint loads", i/8, i%8)
		}
		if errors.Is(err, safetensors.ErrChecksum) {
			corrupt++
		}
	}
	t.Logf("%d bytes (%d of header), %d flips, %d checksum mismatches", len(b), head, len(flips), corrupt)
	// The message LoadCheckpoint gives.
	c := bytes.Clone(b)
	c[len(c)/2] ^= 1
	path := filepath.Join(t.TempDir(), "ck")
	if err := os.WriteFile(path, c, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCheckpoint(path); err == nil || err.Error() != "nsvm: "+path+": the checkpoint file is corrupt: checksum mismatch" {
		t.Fatalf("LoadCheckpoint: %v", err)
	}
}

// TestCheckpointOldFormat: a checkpoint of the previous format, without
// the seed, the data fingerprint and the checksum, is refused as one that
// cannot be verified.
func TestCheckpointOldFormat(t *testing.T) {
	p, _ := ringnormProblem(t, 60, 10, 5)
	b, err := os.ReadFile(midwayCheckpoint(t, 4, p, 10, 11))
	if err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var ts []safetensors.Tensor
	for _, n := range f.Names() {
		ts = append(ts, f.Tensors[n])
	}
	for _, c := range []struct {
		format string
		want   string
	}{
		{"nsvm-checkpoint/1", "cannot be verified"},
		{CheckpointFormat, "carries no checksum"},
	} {
		f.Metadata["format"] = c.format
		var old bytes.Buffer
		if err := safetensors.Write(&old, f.Metadata, ts); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "ck")
		if err := os.WriteFile(path, old.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadCheckpoint(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("format %s without a checksum: %v, want %q", c.format, err, c.want)
		}
	}
}

// FuzzReadCheckpoint feeds the checkpoint reader corrupted files: it never
// panics, and what it accepts saves and reads back the same.
func FuzzReadCheckpoint(f *testing.F) {
	p, _ := ringnormProblem(f, 60, 10, 5)
	for _, alg := range []int{1, 4} {
		b, err := os.ReadFile(midwayCheckpoint(f, alg, p, 10, 11))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := safetensors.Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		c, err := decodeCheckpoint(file, "ck")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "nsvm: ") || len(err.Error()) > 300 {
				t.Fatalf("error %q", err)
			}
			return
		}
		path := filepath.Join(t.TempDir(), "ck")
		if err := c.Save(path); err != nil {
			t.Fatalf("an accepted checkpoint does not save: %v", err)
		}
		again, err := LoadCheckpoint(path)
		if err != nil || again.Step != c.Step || again.Seed != c.Seed || again.Data != c.Data || again.Config != c.Config {
			t.Fatalf("saved and read back: %v, %+v", err, again)
		}
	})
}
