package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/paper"
)

// Bar renders a trainer's progress on a terminal: one line, redrawn in
// place at most every 100 ms, with a bar, the rate, the time left and the
// live metrics the trainers report (violations, support vectors,
// alignment). Update is a paper.ProgressFunc; Done ends the line.
type Bar struct {
	W     io.Writer
	Label string
	Width int // of the bar, in characters (0: 24)
	last  time.Time
	drawn bool
}

// Update draws the report p.
func (b *Bar) Update(p paper.Progress) {
	now := time.Now()
	if p.Step < p.Total && now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	width := b.Width
	if width <= 0 {
		width = 24
	}
	frac := 0.0
	if p.Total > 0 {
		frac = min(1, float64(p.Step)/float64(p.Total))
	}
	filled := int(frac * float64(width))
	var sb strings.Builder
	fmt.Fprintf(&sb, "\r%s %-8s [%s%s] %3.0f%% %d/%d", b.Label, p.Phase,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), 100*frac, p.Step, p.Total)
	if p.Elapsed > 0 && p.Step > 0 {
		rate := float64(p.Step) / p.Elapsed.Seconds()
		eta := time.Duration(float64(p.Total-p.Step) / rate * float64(time.Second))
		fmt.Fprintf(&sb, " %s/s ETA %s", human(rate), eta.Round(time.Second))
	}
	if p.Phase == "train" && p.Algorithm <= 3 {
		fmt.Fprintf(&sb, " viol %.1f%%", 100*p.ViolationRate)
	}
	if p.NSV > 0 {
		fmt.Fprintf(&sb, " nSV %d", p.NSV)
	}
	if p.Phase == "train" && p.Algorithm >= 3 {
		fmt.Fprintf(&sb, " align %.3f", p.Alignment)
	}
	sb.WriteString("\x1b[K")
	io.WriteString(b.W, sb.String())
	b.drawn = true
}

// Done ends the line, if one was drawn.
func (b *Bar) Done() {
	if b.drawn {
		io.WriteString(b.W, "\n")
	}
}

// human writes a rate with k or M.
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
