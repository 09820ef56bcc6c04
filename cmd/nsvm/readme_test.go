package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeCommand is one nsvm command line of README.md's shell blocks.
type readmeCommand struct {
	line int    // of README.md
	text string // as written, continuation lines joined, comment dropped
	args []string
}

// readmeCommands returns the nsvm commands of README.md's ```sh blocks
// ("./nsvm …" and "go run ./cmd/nsvm …"), with optional parts in brackets
// ("[--json]") left out.
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []readmeCommand
	sc := bufio.NewScanner(f)
	inSh, n, start := false, 0, 0
	var cont strings.Builder
	optional := regexp.MustCompile(`\s\[[^\]]*\]`)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			inSh = line == "```sh"
			continue
		case !inSh:
			continue
		}
		if cont.Len() == 0 {
			start = n
		}
		if strings.HasSuffix(line, `\`) {
			cont.WriteString(strings.TrimSuffix(line, `\`))
			continue
		}
		cont.WriteString(line)
		text := cont.String()
		cont.Reset()
		if i := strings.Index(text, " # "); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(optional.ReplaceAllString(text, ""))
		var rest string
		switch {
		case strings.HasPrefix(text, "./nsvm "):
			rest = strings.TrimPrefix(text, "./nsvm ")
		case strings.HasPrefix(text, "go run ./cmd/nsvm "):
			rest = strings.TrimPrefix(text, "go run ./cmd/nsvm ")
		default:
			continue
		}
		args, err := shellWords(rest)
		if err != nil {
			t.Fatalf("README.md:%d: %v", start, err)
		}
		cmds = append(cmds, readmeCommand{start, text, args})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// shellWords splits a command line as sh would, for the quoting README.md
// uses: words separated by blanks, '…' and "…" quoting.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed quote in %q", s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// TestREADMEFlags: every nsvm command in README.md names a command that
// exists and only flags that command defines (as its -h lists them).
func TestREADMEFlags(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 20 {
		t.Fatalf("only %d commands found in README.md", len(cmds))
	}
	help := map[string]string{}
	for _, c := range cmds {
		name := c.args[:1]
		if (c.args[0] == "data" || c.args[0] == "reproduce") && len(c.args) > 1 {
			name = c.args[:2]
		}
		key := strings.Join(name, " ")
		if _, ok := help[key]; !ok {
			_, errs, code := runCLI(t, append(slices.Clone(name), "-h")...)
			if code != 0 || !strings.Contains(errs, "Usage: nsvm "+name[0]) {
				t.Errorf("README.md:%d: %s: nsvm %s -h: exit %d, %.200s", c.line, c.text, key, code, errs)
				continue
			}
			help[key] = errs
		}
		for _, a := range c.args {
			if !strings.HasPrefix(a, "--") {
				continue
			}
			flag := strings.SplitN(strings.TrimPrefix(a, "--"), "=", 2)[0]
			if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(flag) + `\b`).MatchString(help[key]) {
				t.Errorf("README.md:%d: %s: nsvm %s has no flag --%s", c.line, c.text, key, flag)
			}
		}
	}
}

// readmeShorter are the changes that make README.md's commands run in the
// time of a test: smaller data and fewer seeds and steps. The commands keep
// their flags (TestREADMEFlags checks them all); only sizes change.
var readmeShorter = []struct{ from, to string }{
	{"--n 7400 ", "--n 800 "},
	{"--n 2000 ", "--n 400 "},
	{"--steps 20000", "--steps 2000"},
	{"--seeds 5", "--seeds 1 --steps-scale 0.02"},
	{"reproduce ringnorm --arch coord", "reproduce ringnorm --steps-scale 0.02 --arch coord"},
	{"--algo nsvm1 --data ring.libsvm --model m ", "--algo nsvm1 --steps 3000 --data ring.libsvm --model m "},
}

// readmeSkip says why a command is not run: it needs the network, or runs
// until stopped.
func readmeSkip(c readmeCommand) string {
	switch {
	case strings.Contains(c.text, "mnist"):
		return "needs MNIST (fetched over the network)"
	case c.args[0] == "serve":
		return "serves until stopped (package serve's tests run the server)"
	case c.args[0] == "toy":
		return "serves until stopped (TestToyModelEqualsTrain and the browser tests run the page)"
	}
	return ""
}

// readmeFixtures writes into dir the files README.md's commands read but
// do not make: the user's CSV files, a sparse text file, weights, 2-D
// points and heart_scale with an svm-train model of it.
func readmeFixtures(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	// their.csv, test.csv, new.csv: a header, a categorical column, names as
	// labels; new.csv has no label column, its columns in another order and
	// an identifier column, id.
	colours := []string{"red", "green", "blue"}
	table := func(n int, withLabel bool) string {
		var b strings.Builder
		if withLabel {
			b.WriteString("age,colour,income,label\n")
		} else {
			b.WriteString("id,income,colour,age\n")
		}
		for i := range n {
			age, income := 20+rng.Float64()*50, rng.NormFloat64()
			colour := colours[rng.IntN(3)]
			label := "no"
			if age/50+income/2+0.3*float64(slices.Index(colours, colour))+0.3*rng.NormFloat64() > 1.2 {
				label = "yes"
			}
			if withLabel {
				fmt.Fprintf(&b, "%.1f,%s,%.3f,%s\n", age, colour, income, label)
			} else {
				fmt.Fprintf(&b, "c%04d,%.3f,%s,%.1f\n", i, income, colour, age)
			}
		}
		return b.String()
	}
	writeFile(t, filepath.Join(dir, "their.csv"), table(300, true))
	writeFile(t, filepath.Join(dir, "test.csv"), table(100, true))
	writeFile(t, filepath.Join(dir, "new.csv"), table(20, false))
	// text.libsvm: 400 rows of 3000 features, 8 nonzero each, half of them
	// from a block of the row's class.
	var text strings.Builder
	for i := range 400 {
		fmt.Fprintf(&text, "%d", 2*(i%2)-1)
		var idx []int
		for len(idx) < 8 {
			f := 1 + rng.IntN(1500)
			if len(idx)%2 == 0 {
				f += 1500 * (i % 2)
			}
			if !slices.Contains(idx, f) {
				idx = append(idx, f)
			}
		}
		slices.Sort(idx)
		for _, f := range idx {
			fmt.Fprintf(&text, " %d:%.2f", f, rng.Float64())
		}
		text.WriteString("\n")
	}
	writeFile(t, filepath.Join(dir, "text.libsvm"), text.String())
	// churn.csv (10 % positive) and w.txt, a weight a row; normal.csv.
	var churn, w, normal strings.Builder
	churn.WriteString("tenure,calls,churned\n")
	for i := range 400 {
		pos := i%10 == 0
		t, c := rng.NormFloat64()*2, rng.NormFloat64()
		if pos {
			t, c = t-2, c+1.5
		}
		fmt.Fprintf(&churn, "%.3f,%.3f,%d\n", t, c, map[bool]int{false: 0, true: 1}[pos])
		fmt.Fprintf(&w, "%.2f\n", 0.5+rng.Float64())
		fmt.Fprintf(&normal, "%.3f,%.3f,%.3f\n", rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
	}
	writeFile(t, filepath.Join(dir, "churn.csv"), churn.String())
	writeFile(t, filepath.Join(dir, "w.txt"), w.String())
	writeFile(t, filepath.Join(dir, "normal.csv"), "a,b,c\n"+normal.String())
	// ringnorm.csv: a DELVE-like file of 7400 rows, the label last.
	mustRun(t, "data", "ringnorm", "--n", "7400", "--seed", "9", "--format", "csv", "--out", filepath.Join(dir, "ringnorm.csv"))
	// points2d.csv and m2d, a model of it.
	var pts strings.Builder
	pts.WriteString("x,y,label\n")
	for i := range 200 {
		r := 1 + float64(i%2) + 0.3*rng.NormFloat64()
		a := 2 * 3.14159 * rng.Float64()
		fmt.Fprintf(&pts, "%.4f,%.4f,%d\n", r*math.Cos(a), r*math.Sin(a), i%2)
	}
	writeFile(t, filepath.Join(dir, "points2d.csv"), pts.String())
	mustRun(t, "train", "--algo", "smo", "--data", filepath.Join(dir, "points2d.csv"), "--model", filepath.Join(dir, "m2d"), "--quiet")
	// heart_scale, and heart_scale.model from svm-train when it is installed,
	// else nsvm's LIBSVM export of an unscaled model.
	hs := filepath.Join(dir, "heart_scale")
	if b, err := os.ReadFile("/usr/share/doc/liblinear-tools/examples/heart_scale"); err == nil {
		writeFile(t, hs, string(b))
	} else {
		var b strings.Builder
		for range 270 {
			y := 2*rng.IntN(2) - 1
			fmt.Fprintf(&b, "%+d", y)
			for j := 1; j <= 13; j++ {
				fmt.Fprintf(&b, " %d:%.3f", j, max(-1, min(1, 0.4*float64(y)*float64(j%3)/2+0.5*rng.NormFloat64())))
			}
			b.WriteString("\n")
		}
		writeFile(t, hs, b.String())
	}
	if svmTrain, err := exec.LookPath("svm-train"); err == nil {
		cmd := exec.Command(svmTrain, "-q", hs, hs+".model")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("svm-train: %v: %s", err, out)
		}
	} else {
		mustRun(t, "train", "--algo", "smo", "--scaling", "none", "--data", hs, "--model", hs+".nsvm", "--quiet")
		mustRun(t, "export", "--format", "libsvm", "--model", hs+".nsvm", "--out", hs+".model")
	}
}

// TestREADMECommands runs README.md's nsvm commands in order, in one
// directory, on the fixtures and what the commands before wrote, with the
// sizes of readmeShorter: each must succeed.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of README.md (about a minute)")
	}
	cmds := readmeCommands(t)
	dir := t.TempDir()
	readmeFixtures(t, dir)
	t.Chdir(dir)
	ran := 0
	for _, c := range cmds {
		if why := readmeSkip(c); why != "" {
			t.Logf("README.md:%d: not run: %s: %s", c.line, why, c.text)
			continue
		}
		text := c.text + " "
		for _, s := range readmeShorter {
			text = strings.Replace(text, s.from, s.to, 1)
		}
		args, _ := shellWords(strings.TrimPrefix(strings.TrimPrefix(text, "go run ./cmd/nsvm "), "./nsvm "))
		if _, errs, code := runCLI(t, args...); code != 0 {
			t.Errorf("README.md:%d: nsvm %s: exit %d: %s", c.line, strings.Join(args, " "), code, errs)
		}
		ran++
	}
	if ran < 20 {
		t.Errorf("only %d commands ran", ran)
	}
	// What the commands should have written.
	for _, f := range []string{"their.nsvm", "hs.model", "ring.libsvm", "f1.libsvm", "ring.nsvm", "ring1.nsvm", "ring.svm",
		"f1.nsvm", "text.nsvm", "churn.nsvm", "novelty.nsvm", "predictions.txt", "ring.model", "m", "ck", "run.jsonl", "curves.png", "boundary.png"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the commands wrote no %s", f)
		}
	}
}
