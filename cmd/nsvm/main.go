// Command nsvm trains, evaluates and applies classical and neural support
// vector machines, describes, exports and serves models, generates and
// fetches data, and reproduces the experiments of Simon & Radons (2023).
// "nsvm help" lists the commands, "nsvm COMMAND -h" a command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// nsvm's heap is mostly a few large arrays of numbers, which the
		// collector does not scan: collecting at 25 % growth instead of
		// 100 % costs little time and bounds the peak memory of training on
		// large data (nsvm train on 60000 28×28 images: a peak of 1.21 GB
		// at 100 %, 851 MB at 50 %, 701 MB at 25 % in 4 % more CPU time).
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C asks the command to stop cleanly (training writes its
	// checkpoint); after it the default handling is back, so a second Ctrl-C
	// ends the process at once.
	go func() { <-ctx.Done(); stop() }()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitStatus(err, os.Stderr))
}

// gcPercent is the collector's target heap growth (GOGC) unless the
// environment sets it.
const gcPercent = 25

// usageError marks errors in how the command was called (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitStatus prints err as one line and returns the exit status.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "nsvm") {
		msg = "nsvm: " + msg
	}
	fmt.Fprintln(stderr, strings.ReplaceAll(msg, "\n", " "))
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// commands are nsvm's commands, in the order help lists them.
var commands = []struct {
	name, summary string
	run           func(*env, []string) error
}{
	{"train", "train a model (NSVM Algorithms 1–4 or a classical SVM solver; any number of classes\n" +
		"with nsvm3/nsvm4; --task regression: SVR; --probability: Platt-scaled probabilities)", (*env).train},
	{"predict", "print the predicted label and decision value (regressors: the value) of every row\n" +
		"(the model: an nsvm model, or a LIBSVM model file)", (*env).predict},
	{"eval", "report accuracy, balanced accuracy, F1 (and ROC AUC for two classes) on labelled\n" +
		"data, with a confusion matrix (regressors: RMSE, MAE, R²)", (*env).eval},
	{"export", "write a model for another runtime: an ONNX graph (--format onnx, any model) or a LIBSVM\n" +
		"model file (--format libsvm, classical models)", (*env).export},
	{"info", "describe a model file: kind, classes, columns, kernel, support vectors, selection", (*env).info},
	{"data", "generate Ringnorm or Friedman #1 data, fetch MNIST, or convert between CSV, LIBSVM,\n" +
		".npy and .npz", (*env).data},
	{"reproduce", "rerun the paper's experiments (ringnorm, mnist01) or full MNIST (mnist10), print a table", (*env).reproduce},
	{"plot", "draw training curves from a --log file, or a 2-D decision boundary", (*env).plot},
	{"serve", "serve a model over HTTP (KServe V1 and Open Inference Protocol V2, Prometheus metrics)", (*env).serveCmd},
	{"toy", "svm-toy in the browser: click points, train SVMs and NSVMs in WebAssembly", (*env).toyCmd},
	{"version", "print the version", nil},
}

// topUsage is what nsvm help prints.
func topUsage() string {
	var b strings.Builder
	b.WriteString("nsvm trains neural and classical support vector machines.\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, strings.ReplaceAll(c.summary, "\n", "\n             "))
	}
	b.WriteString("\nRun \"nsvm COMMAND -h\" for the flags of a command.")
	return b.String()
}

// commandNames lists the commands for messages.
func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// run is the whole program; main only wires it to the process. A failed
// write to stdout (a full disk, a closed pipe) fails the command even when
// the command itself did not look at the error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	out := &stickyWriter{w: stdout}
	err := dispatch(ctx, args, stdin, out, stderr)
	if err == nil && out.err != nil {
		err = fmt.Errorf("nsvm: writing the output: %w", out.err)
	}
	return err
}

// stickyWriter remembers the first error of writing to w and fails every
// write after it.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// dispatch runs the command args[0].
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("nsvm: no command given (want %s; see nsvm help)", commandNames())
	}
	env := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	switch args[0] {
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "nsvm "+version)
		return nil
	case "help", "-h", "--help", "-help":
		fmt.Fprintln(stdout, topUsage())
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] && c.run != nil {
			return c.run(env, args[1:])
		}
	}
	return usagef("nsvm: unknown command %q (want %s; see nsvm help)", args[0], commandNames())
}

const version = "0.1.0"

// env carries the process's streams and context to the commands.
type env struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	// isTerminal reports whether stderr is a terminal (for progress bars);
	// nil means ask the operating system.
	isTerminal func() bool
}

// newFlags returns a flag set that reports errors instead of exiting and
// prints its usage to stderr only when asked with -h.
func (e *env) newFlags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: nsvm %s\n\nFlags:\n", usage)
		fs.SetOutput(e.stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parse parses args, turning flag errors into usage errors. A bare
// argument is the data file of a command that reads one (as svm-train
// takes it), else an error.
func (e *env) parse(fs *flag.FlagSet, args []string) error {
	pos, err := e.parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return nil
	}
	if f := fs.Lookup("data"); f != nil && f.Value.String() == "" {
		if err := fs.Set("data", pos[0]); err != nil {
			return err
		}
		if pos = pos[1:]; len(pos) == 0 {
			return nil
		}
	}
	if fs.Lookup("data") != nil {
		return usagef("nsvm %s: unexpected argument %q (the data file is --data FILE)", fs.Name(), pos[0])
	}
	return usagef("nsvm %s: unexpected argument %q", fs.Name(), pos[0])
}
