package main

import (
	"os"

	"golang.org/x/term"

	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
)

// progressFor returns a progress callback that draws a report.Bar on
// stderr when stderr is a terminal and quiet is false (nil otherwise), and
// the function that ends it.
func (e *env) progressFor(label string, quiet bool) (paper.ProgressFunc, func()) {
	if quiet || !e.terminal() {
		return nil, func() {}
	}
	b := &report.Bar{W: e.stderr, Label: label}
	return b.Update, b.Done
}

func (e *env) terminal() bool {
	if e.isTerminal != nil {
		return e.isTerminal()
	}
	f, ok := e.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
