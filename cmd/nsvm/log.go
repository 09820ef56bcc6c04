package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
)

// progressLog is a --log file: the library's report.Log on a file the
// command line opens and closes.
type progressLog struct {
	*report.Log
	path string
	f    *os.File
}

// openLog creates (or truncates) the log file at path.
func openLog(path string) (*progressLog, error) {
	if err := checkWritable(path, "log"); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("nsvm: cannot write log %s: %w", path, err)
	}
	return &progressLog{Log: report.NewLog(f), path: path, f: f}, nil
}

// callback returns a progress function that records the reports of one run.
func (l *progressLog) callback(run string, seed uint64) paper.ProgressFunc {
	return l.Progress(run, seed)
}

// close closes the file. A log that received no record because the run
// failed before its first step is removed, so that a bad invocation leaves
// no file behind; a log of a run that stopped midway is kept (its curves
// show what happened).
func (l *progressLog) close(runErr error) error {
	if l == nil {
		return nil
	}
	err := l.Err()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if runErr != nil && l.Lines() == 0 {
		os.Remove(l.path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("nsvm: writing log %s: %w", l.path, err)
	}
	return nil
}

// checkWritable fails early, before any training, when path cannot be
// written: its directory is missing, is not a directory or refuses new
// files, or path itself is a directory. It leaves nothing behind.
func checkWritable(path, what string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("nsvm: cannot write %s %s: it is a directory", what, path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("nsvm: cannot write %s %s: directory %s does not exist", what, path, dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("nsvm: cannot write %s %s: %s is not a directory", what, path, dir)
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".probe*")
	if err != nil {
		return fmt.Errorf("nsvm: cannot write %s %s: directory %s is not writable", what, path, dir)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}
