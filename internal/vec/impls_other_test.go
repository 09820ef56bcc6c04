//go:build !amd64 || noasm

package vec

func fastGemms() map[string]gemmFunc {
	return map[string]gemmFunc{"dispatch": sgemm, "go": sgemmGo}
}
