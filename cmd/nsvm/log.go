package main

import (
	"fmt"

	"github.com/nsvm-go/nsvm/internal/atomicfile"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
)

// progressLog is a --log file: the library's report.Log on a file the
// command line opens and closes. Its records go to a temporary file beside
// it (.NAME.nsvm-tmp-PID-RANDOM, to follow while the run lasts), which
// takes the log's place when the run ends.
type progressLog struct {
	*report.Log
	f *atomicfile.File
}

// openLog starts the log file at path.
func openLog(path string) (*progressLog, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		// Check says why in words (a missing directory, a directory
		// given, no permission), as for the outputs.
		if werr := checkWritable(path, "log"); werr != nil {
			return nil, werr
		}
		return nil, fmt.Errorf("nsvm: cannot write the log: %w", err)
	}
	return &progressLog{Log: report.NewLog(f), f: f}, nil
}

// callback returns a progress function that records the reports of one run.
func (l *progressLog) callback(run string, seed uint64) paper.ProgressFunc {
	return l.Progress(run, seed)
}

// close ends the log. A log that received no record because the run failed
// before its first step is discarded, so that a bad invocation leaves no
// file behind and an earlier log as it was; a log of a run that stopped
// midway takes its place (its curves show what happened).
func (l *progressLog) close(runErr error) error {
	if l == nil {
		return nil
	}
	if runErr != nil && l.Lines() == 0 {
		l.f.Discard()
		return nil
	}
	err := l.Err()
	if err == nil {
		err = l.f.Commit()
	}
	l.f.Discard()
	if err != nil {
		return fmt.Errorf("nsvm: writing the log: %w", err)
	}
	return nil
}

// checkWritable fails early, before any training, when path cannot be
// written: its directory is missing, is not a directory or refuses new
// files, or path itself is a directory. It leaves nothing behind.
func checkWritable(path, what string) error {
	if err := atomicfile.Check(path); err != nil {
		return fmt.Errorf("nsvm: cannot write the %s: %w", what, err)
	}
	return nil
}

// file is a file a command reads or writes, with the flag that names it.
type file = atomicfile.Named

// checkOutputs refuses, before anything is read or written, outputs that
// are one of the command's inputs (the same file, also through symbolic or
// hard links) or one another: writing them would destroy the input.
func checkOutputs(cmd string, outputs, inputs []file) error {
	if err := atomicfile.Clash(outputs, inputs); err != nil {
		return usagef("nsvm %s: %v", cmd, err)
	}
	return nil
}

// checkOutputs refuses train's outputs (--model, --checkpoint, --log) that
// are its inputs (--data, --labels, --weights, --resume) or one another;
// the checkpoint may be the --resume file it goes on from.
func (f *trainFlags) checkOutputs() error {
	inputs := []file{{"--data", f.Path}, {"--labels", f.Labels}, {"--weights", f.weights}}
	if f.checkpoint == "" || !atomicfile.Same(f.checkpoint, f.resume) {
		inputs = append(inputs, file{"--resume", f.resume})
	}
	return checkOutputs("train", []file{{"--model", f.model}, {"--checkpoint", f.checkpoint}, {"--log", f.log}}, inputs)
}
