//go:build !amd64 || noasm

package vec

func fastGemms() map[string]gemmFunc {
	return map[string]gemmFunc{"Sgemm": Sgemm, "go": guarded(sgemmGo)}
}
