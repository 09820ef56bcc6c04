package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/model"
)

// Whether a continued NSVM's network steps still pay (see Continue).
//
// Every continuation of an NSVM classifier first scores the model on its
// new rows, which it has not learnt from yet (a prequential, or
// test-then-train, error). Over a stream from one distribution these errors
// fall while the model learns and level off once it has learnt what it can.
// The network's steps are the costly part of a continuation (on MNIST about
// three quarters of it), so once the errors of the last payWindow chunks are
// no lower than those of the payWindow chunks before by more than a
// standard error, the network stops and only the kernel head goes on
// learning, on features that no longer move. If the errors of a later
// window then rise above those that stopped it by more than two standard
// errors (the data moved), the network's steps resume.

const (
	// infoPrequential holds the errors the model made on the new rows of
	// its last continuations before learning from them, "errors/rows" a
	// chunk, oldest first.
	infoPrequential = "prequential_errors"
	// InfoNetworkFrozen is set ("errors/rows" of the window that decided
	// it) on a continued NSVM whose network has stopped taking steps
	// because they stopped paying; the next continuations step its kernel
	// head only, until the errors rise again.
	InfoNetworkFrozen = "network_frozen"
	// payWindow is the number of chunks a window of the comparison holds.
	payWindow = 5
)

// chunkErrs counts the errors on rows.
type chunkErrs struct{ errs, rows int }

func (c chunkErrs) rate() float64 { return float64(c.errs) / float64(max(1, c.rows)) }

func (c chunkErrs) String() string { return fmt.Sprintf("%d/%d", c.errs, c.rows) }

// parseChunkErrs reads a list of chunkErrs ("" is none); a malformed list
// reads as none (the comparison starts again).
func parseChunkErrs(s string) []chunkErrs {
	var out []chunkErrs
	for f := range strings.SplitSeq(s, ",") {
		if f == "" {
			continue
		}
		e, r, ok := strings.Cut(f, "/")
		ne, err1 := strconv.Atoi(e)
		nr, err2 := strconv.Atoi(r)
		if !ok || err1 != nil || err2 != nil || ne < 0 || nr < ne {
			return nil
		}
		out = append(out, chunkErrs{ne, nr})
	}
	return out
}

func formatChunkErrs(cs []chunkErrs) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, ",")
}

func sumErrs(cs []chunkErrs) chunkErrs {
	var t chunkErrs
	for _, c := range cs {
		t.errs += c.errs
		t.rows += c.rows
	}
	return t
}

// diffSE is the standard error of the difference of two error rates under
// the hypothesis that they are equal (the pooled two-proportion test).
func diffSE(a, b chunkErrs) float64 {
	p := float64(a.errs+b.errs) / float64(max(1, a.rows+b.rows))
	return math.Sqrt(p * (1 - p) * (1/float64(max(1, a.rows)) + 1/float64(max(1, b.rows))))
}

// networkFrozen decides whether the network stays still on this chunk,
// from hist (the chunks' errors, oldest first, this chunk's last) and
// whether it was frozen (by the window ref). It returns the decision, the
// history to keep and the window that froze the network (zero if it is
// not frozen).
func networkFrozen(hist []chunkErrs, was bool, ref chunkErrs) (bool, []chunkErrs, chunkErrs) {
	if len(hist) > 2*payWindow {
		hist = hist[len(hist)-2*payWindow:]
	}
	if len(hist) < payWindow || !was && len(hist) < 2*payWindow {
		return was, hist, ref
	}
	last := sumErrs(hist[len(hist)-payWindow:])
	if was {
		if last.rate()-ref.rate() > 2*diffSE(last, ref) {
			// The data moved: learn again, and compare afresh from here.
			return false, hist[len(hist)-1:], chunkErrs{}
		}
		return true, hist, ref
	}
	prev := sumErrs(hist[:payWindow])
	if prev.rate()-last.rate() <= diffSE(prev, last) {
		return true, hist, last
	}
	return false, hist, chunkErrs{}
}

// prequential scores m (its network and heads as they are, before any step
// on these rows) on the new rows, whose features under the network are z
// and classes y, records the errors in m.Info and returns whether the
// network's steps stop on this chunk (see networkFrozen).
func (st *streamState) prequential(m *model.Model, z []float32, y []float64) bool {
	n := len(y)
	pred := make([]float64, n)
	st.labels(pred, m, z, n)
	classes := m.Labels()
	e := 0
	for i, v := range y {
		if pred[i] != classes[int(v)] {
			e++
		}
	}
	hist := append(parseChunkErrs(m.Info[infoPrequential]), chunkErrs{e, n})
	var ref chunkErrs
	was := false
	if r := parseChunkErrs(m.Info[InfoNetworkFrozen]); len(r) == 1 {
		was, ref = true, r[0]
	}
	frozen, hist, ref := networkFrozen(hist, was, ref)
	m.Info[infoPrequential] = formatChunkErrs(hist)
	delete(m.Info, InfoNetworkFrozen)
	if frozen {
		m.Info[InfoNetworkFrozen] = ref.String()
	}
	return frozen
}
