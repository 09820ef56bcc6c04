//go:build amd64 && !noasm

package vec

// fastGemms lists the implementations that the tests check against SgemmRef
// on this build.
func fastGemms() map[string]gemmFunc {
	m := map[string]gemmFunc{"dispatch": sgemm, "go": sgemmGo}
	if hasAVX2FMA {
		m["avx2"] = sgemmAVX
	}
	return m
}
