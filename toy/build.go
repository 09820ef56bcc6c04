package toy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// modulePath is the module the page's WebAssembly module is built from.
const modulePath = "github.com/nsvm-go/nsvm"

// Assets are the files of the page that are built, not embedded.
type Assets struct {
	// WASM is the module (toy/wasm built for GOOS=js GOARCH=wasm), read
	// from Path.
	WASM []byte
	Path string
	// WasmExecJS is the JavaScript support file of the Go that built it.
	WasmExecJS []byte
}

// Build builds the page's module with the go command on PATH into dir
// ("": the user's cache directory, nsvm/toy in it) and reads it, with that
// Go's wasm_exec.js. The source is the module this package was compiled
// from (its directory, as go run and go build in a clone leave it), else
// the module of the working directory, else the module cache's copy of the
// version the program was installed at (go install …@version).
func Build(ctx context.Context, dir string) (*Assets, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, errors.New("toy: the page's WebAssembly module is built with Go, and no go command is on PATH (install Go 1.26 or later from https://go.dev/dl, then run nsvm toy again)")
	}
	src, err := sourceDir(ctx, goCmd)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		dir = filepath.Join(base, "nsvm", "toy")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("toy: %w", err)
	}
	out := filepath.Join(dir, "nsvm-toy.wasm")
	build := exec.CommandContext(ctx, goCmd, "build", "-o", out, "./toy/wasm")
	build.Dir = src
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("toy: building the WebAssembly module (GOOS=js GOARCH=wasm go build ./toy/wasm in %s): %v\n%s", src, err, strings.TrimSpace(string(msg)))
	}
	a := &Assets{Path: out}
	if a.WASM, err = os.ReadFile(out); err != nil {
		return nil, fmt.Errorf("toy: %w", err)
	}
	goroot, err := goEnv(ctx, goCmd, src, "GOROOT")
	if err != nil {
		return nil, err
	}
	// Go 1.24 moved wasm_exec.js from misc/wasm to lib/wasm.
	for _, d := range []string{"lib", "misc"} {
		if a.WasmExecJS, err = os.ReadFile(filepath.Join(goroot, d, "wasm", "wasm_exec.js")); err == nil {
			return a, nil
		}
	}
	return nil, fmt.Errorf("toy: no wasm_exec.js in %s/lib/wasm (the Go installation lacks its WebAssembly support file)", goroot)
}

// sourceDir returns the root of the module's source to build from.
func sourceDir(ctx context.Context, goCmd string) (string, error) {
	var tried []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		tried = append(tried, filepath.Dir(filepath.Dir(file)))
	}
	if gomod, err := goEnv(ctx, goCmd, "", "GOMOD"); err == nil && filepath.IsAbs(gomod) {
		tried = append(tried, filepath.Dir(gomod))
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == modulePath && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		if cache, err := goEnv(ctx, goCmd, "", "GOMODCACHE"); err == nil && cache != "" {
			tried = append(tried, filepath.Join(cache, modulePath+"@"+bi.Main.Version))
		}
	}
	for _, d := range tried {
		if isSource(d) {
			return d, nil
		}
	}
	where := "found no place to look"
	if len(tried) > 0 {
		where = "looked in " + strings.Join(tried, ", ")
	}
	return "", fmt.Errorf("toy: cannot find nsvm's source to build the page's WebAssembly module from (%s); run nsvm toy in a clone of the repository (go run ./cmd/nsvm toy)", where)
}

// isSource reports whether dir is the root of the module, with the
// page's module in it.
func isSource(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			if strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "module ")), `"`) != modulePath {
				return false
			}
			_, err := os.Stat(filepath.Join(dir, "toy", "wasm", "main.go"))
			return err == nil
		}
	}
	return false
}

// goEnv returns go env name, run in dir ("": the working directory).
func goEnv(ctx context.Context, goCmd, dir, name string) (string, error) {
	cmd := exec.CommandContext(ctx, goCmd, "env", name)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("toy: go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
