// Command abuse attacks `nsvm serve` with the hostile requests of
// bench/serve/abuse.sh at full size and reports, for each, the answers by
// status and the server's peak resident memory (sampled from /proc every
// 20 ms) against the configured bound:
//
//	go run ./bench/serve/abuse -nsvm BIN [-max-memory 1GiB] [-scale 1] [-old]
//
// The cases: three concurrent V2 requests of 1500 rows (550 KB) naming the
// output "decision" 20 000 times; 40 concurrent V1 bodies of 60 MB (Content-Length
// given), then 8 of 60 MB without one (chunked); the resident memory 3 s
// after that burst; and single bad requests (an INT8 value of 300, version
// 99, a null sparse instance, a 100 KB value to echo) with the size of the
// error answer. -scale divides the body sizes; -old runs a server that has
// no --max-memory flag (the code before the bound) with the same requests.
// Linux only (/proc).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bin := flag.String("nsvm", "nsvm", "the nsvm binary")
	maxMemory := flag.String("max-memory", "1GiB", "the server's --max-memory")
	scale := flag.Int("scale", 1, "divide the body sizes by this")
	old := flag.Bool("old", false, "the server has no --max-memory flag")
	flag.Parse()
	if err := run(*bin, *maxMemory, *scale, *old); err != nil {
		fmt.Fprintln(os.Stderr, "abuse:", err)
		os.Exit(1)
	}
}

// server is a running nsvm serve.
type server struct {
	cmd  *exec.Cmd
	addr string
	peak atomic.Int64 // most resident bytes seen since the last reset
	stop chan struct{}
}

func run(bin, maxMemory string, scale int, old bool) error {
	dir, err := os.MkdirTemp("", "abuse")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ring, model := filepath.Join(dir, "ring.txt"), filepath.Join(dir, "ring.nsvm")
	for _, args := range [][]string{
		{"data", "ringnorm", "--n", "2000", "--seed", "1", "--out", ring},
		{"train", "--data", ring, "--model", model, "--algo", "smo", "--C", "1", "--gamma", "0.05", "--probability", "--quiet"},
	} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("nsvm %s: %v: %s", args[0], err, out)
		}
	}
	args := []string{"serve", "--model", model, "--name", "ring", "--addr", "127.0.0.1:0", "--max-instances", "10000000",
		"--max-body", "134217728", "--read-timeout", "120s", "--write-timeout", "120s"}
	if !old {
		args = append(args, "--max-memory", maxMemory)
	}
	s, err := start(bin, args)
	if err != nil {
		return err
	}
	defer s.close()
	base := s.rss()
	fmt.Printf("nsvm serve %s\nresident at start: %.0f MB\n\n", strings.Join(args[1:], " "), mb(base))
	fmt.Println("| case | answers by status | peak RSS MB | RSS after MB |")
	fmt.Println("|---|---|---|---|")
	row := func(name string, codes map[string]int, after int64) {
		keys := make([]string, 0, len(codes))
		for k := range codes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s×%d", k, codes[k]))
		}
		a := "—"
		if after > 0 {
			a = fmt.Sprintf("%.0f", mb(after))
		}
		fmt.Printf("| %s | %s | %.0f | %s |\n", name, strings.Join(parts, " "), mb(s.peak.Load()), a)
	}
	url := "http://" + s.addr

	// 1. V2 outputs repeated 20 000 times, 3 at once.
	rowVals := make([]string, 20)
	for i := range rowVals {
		rowVals[i] = "0.5"
	}
	outputs := strings.TrimSuffix(strings.Repeat(`{"name": "decision"}, `, 20000), ", ")
	n := 1500 / scale
	data := strings.TrimSuffix(strings.Repeat(strings.Join(rowVals, ",")+",", n), ",")
	v2 := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,20],"datatype":"FP32","data":[%s]}],"outputs":[%s]}`, n, data, outputs)
	s.peak.Store(s.rss())
	codes := fire(3, func() (string, error) { return post(url+"/v2/models/ring/infer", []byte(v2), true) })
	row(fmt.Sprintf("V2 %d rows, outputs × 20 000 (%d KB), 3 at once", n, len(v2)>>10), codes, 0)

	// 2. 40 concurrent V1 bodies of 60 MB, then 8 without Content-Length.
	body := v1Body(60<<20/scale, rand.New(rand.NewPCG(1, 2)))
	s.peak.Store(s.rss())
	codes = fire(40, func() (string, error) { return post(url+"/v1/models/ring:predict", body, true) })
	row(fmt.Sprintf("40 × V1 %d MB at once", len(body)>>20), codes, 0)
	s.peak.Store(s.rss())
	codes = fire(8, func() (string, error) { return post(url+"/v1/models/ring:predict", body, false) })
	time.Sleep(3 * time.Second)
	row(fmt.Sprintf("8 × V1 %d MB unsized, RSS 3 s after", len(body)>>20), codes, s.rss())

	// 3. Single bad requests: status and size of the answer.
	sparse := `{"instances":[{"indices":[0,3],"values":[1,2]},null]}`
	int8 := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,20],"datatype":"INT8","data":[300,%s]}]}`, strings.Join(rowVals[1:], ","))
	echo := `{"instances":[[` + strings.Repeat("7", 100000) + `]]}`
	fmt.Println()
	fmt.Println("| request | status | answer bytes | answer |")
	fmt.Println("|---|---|---|---|")
	for _, c := range []struct{ name, path, body string }{
		{"INT8 value 300", "/v2/models/ring/infer", int8},
		{"version 99", "/v2/models/ring/versions/99/infer", int8},
		{"null sparse instance", "/v1/models/ring:predict", sparse},
		{"100 KB number", "/v1/models/ring:predict", echo},
	} {
		resp, err := http.Post(url+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		short := string(b)
		if len(short) > 100 {
			short = short[:100] + "…"
		}
		fmt.Printf("| %s | %d | %d | `%s` |\n", c.name, resp.StatusCode, len(b), strings.TrimSpace(short))
	}
	fmt.Printf("\npeak resident memory over the run: %.0f MB (VmHWM); bound --max-memory %s\n", mb(s.hwm()), maxMemory)
	return nil
}

// v1Body is a V1 request of about size bytes: rows of 20 numbers printed
// with 17 significant digits.
func v1Body(size int, rng *rand.Rand) []byte {
	var b bytes.Buffer
	b.Grow(size + 1024)
	b.WriteString(`{"instances":[`)
	for i := 0; b.Len() < size-600; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for j := range 20 {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(rng.NormFloat64()*2, 'g', 17, 64))
		}
		b.WriteByte(']')
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// fire runs n calls of f at once and counts their outcomes.
func fire(n int, f func() (string, error)) map[string]int {
	var mu sync.Mutex
	codes := map[string]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			c, err := f()
			if err != nil {
				c = "dropped (" + err.Error() + ")"
				if len(c) > 60 {
					c = c[:60] + "…)"
				}
			}
			mu.Lock()
			codes[c]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return codes
}

// post sends body (with its length, or chunked) and returns the status, or
// "bad" for an answer that is neither a prediction nor a JSON error.
func post(url string, body []byte, sized bool) (string, error) {
	var r io.Reader = bytes.NewReader(body)
	if !sized {
		r = io.MultiReader(r) // hides the length: chunked
	}
	client := &http.Client{Timeout: 5 * time.Minute}
	resp, err := client.Post(url, "application/json", r)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", fmt.Errorf("status %d, answer not JSON: %v", resp.StatusCode, err)
	}
	return strconv.Itoa(resp.StatusCode), nil
}

func start(bin string, args []string) (*server, error) {
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stop: make(chan struct{})}
	re := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			s.addr = m[1]
			break
		}
	}
	if s.addr == "" {
		cmd.Process.Kill()
		return nil, fmt.Errorf("nsvm serve did not start")
	}
	go io.Copy(io.Discard, stderr)
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				if r := s.rss(); r > s.peak.Load() {
					s.peak.Store(r)
				}
			}
		}
	}()
	return s, nil
}

// rss and hwm read the server's resident memory now and at its peak.
func (s *server) rss() int64 { return s.status("VmRSS:") }
func (s *server) hwm() int64 { return s.status("VmHWM:") }

func (s *server) status(key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func (s *server) close() {
	close(s.stop)
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
	}
}

func mb(b int64) float64 { return float64(b) / 1e6 }
