package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/paper"
)

// bar renders training progress on a terminal: one line, redrawn in place,
// with a bar, rate, ETA and the live metrics the trainers report.
type bar struct {
	w     io.Writer
	label string
	last  time.Time
	width int
	drawn bool
}

// progressFor returns a progress callback that draws on stderr when stderr is
// a terminal and quiet is false, and nil otherwise.
func (e *env) progressFor(label string, quiet bool) (paper.ProgressFunc, func()) {
	if quiet || !e.terminal() {
		return nil, func() {}
	}
	b := &bar{w: e.stderr, label: label, width: 24}
	return b.update, b.done
}

func (e *env) terminal() bool {
	if e.isTerminal != nil {
		return e.isTerminal()
	}
	f, ok := e.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (b *bar) update(p nsvm.Progress) {
	now := time.Now()
	final := p.Step >= p.Total
	if !final && now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	frac := 0.0
	if p.Total > 0 {
		frac = min(1, float64(p.Step)/float64(p.Total))
	}
	filled := int(frac * float64(b.width))
	var sb strings.Builder
	fmt.Fprintf(&sb, "\r%s %-8s [%s%s] %3.0f%% %d/%d", b.label, p.Phase,
		strings.Repeat("=", filled), strings.Repeat(" ", b.width-filled), 100*frac, p.Step, p.Total)
	if p.Elapsed > 0 && p.Step > 0 {
		rate := float64(p.Step) / p.Elapsed.Seconds()
		eta := time.Duration(float64(p.Total-p.Step) / rate * float64(time.Second))
		fmt.Fprintf(&sb, " %s/s ETA %s", human(rate), eta.Round(time.Second))
	}
	if p.Phase == "train" {
		if p.Algorithm <= 3 {
			fmt.Fprintf(&sb, " viol %.1f%%", 100*p.ViolationRate)
		}
		if p.NSV > 0 {
			fmt.Fprintf(&sb, " nSV %d", p.NSV)
		}
		if p.Algorithm >= 3 {
			fmt.Fprintf(&sb, " align %.3f", p.Alignment)
		}
	} else if p.NSV > 0 {
		fmt.Fprintf(&sb, " nSV %d", p.NSV)
	}
	sb.WriteString("\x1b[K")
	io.WriteString(b.w, sb.String())
	b.drawn = true
}

func (b *bar) done() {
	if b.drawn {
		io.WriteString(b.w, "\n")
	}
}

func human(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}
