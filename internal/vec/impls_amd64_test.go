//go:build amd64 && !noasm

package vec

import (
	"testing"
	"unsafe"
)

// fastGemms lists the implementations that the tests check against SgemmRef
// on this build.
func fastGemms() map[string]gemmFunc {
	m := map[string]gemmFunc{"Sgemm": Sgemm, "go": guarded(sgemmGo)}
	if hasAVX2FMA {
		m["avx2"] = guarded(sgemm)
		// Without the split across goroutines every blocking edge of
		// the single-threaded strategies is reached.
		m["avx2-serial"] = guarded(sgemmAVXSerial)
	}
	return m
}

// TestKernArgsLayout checks kernArgs against the offsets that asm/gen.go
// compiles into the kernels.
func TestKernArgsLayout(t *testing.T) {
	var ka kernArgs
	want := map[string][2]uintptr{
		"a": {unsafe.Offsetof(ka.a), 0}, "b": {unsafe.Offsetof(ka.b), 8}, "c": {unsafe.Offsetof(ka.c), 16},
		"nt": {unsafe.Offsetof(ka.nt), 24}, "k": {unsafe.Offsetof(ka.k), 32}, "rsa": {unsafe.Offsetof(ka.rsa), 40},
		"csa": {unsafe.Offsetof(ka.csa), 48}, "ldb": {unsafe.Offsetof(ka.ldb), 56}, "bts": {unsafe.Offsetof(ka.bts), 64},
		"ldc": {unsafe.Offsetof(ka.ldc), 72}, "loadC": {unsafe.Offsetof(ka.loadC), 80}, "rem": {unsafe.Offsetof(ka.rem), 88},
		"alpha": {unsafe.Offsetof(ka.alpha), 96}, "beta": {unsafe.Offsetof(ka.beta), 100},
		"ku": {unsafe.Offsetof(ka.ku), 104},
	}
	for name, o := range want {
		if o[0] != o[1] {
			t.Errorf("kernArgs.%s at offset %d, kernels expect %d", name, o[0], o[1])
		}
	}
}
