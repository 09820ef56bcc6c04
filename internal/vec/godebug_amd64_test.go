//go:build amd64 && !noasm

package vec

import (
	"os"
	"os/exec"
	"testing"
)

// TestGODEBUGSelectsGo: GODEBUG=cpu.avx2=off turns the assembly off at run
// time, so that a program runs the pure-Go paths (the arithmetic of noasm
// builds and of WebAssembly) on any amd64 CPU.
func TestGODEBUGSelectsGo(t *testing.T) {
	if os.Getenv("VEC_REPORT_AVX2") != "" {
		if hasAVX2FMA || hasAVX512 {
			t.Fatal("the assembly is on under GODEBUG=cpu.avx2=off")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGODEBUGSelectsGo$")
	cmd.Env = append(os.Environ(), "VEC_REPORT_AVX2=1", "GODEBUG=cpu.avx2=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
