// Package errmsg shapes the library's error messages.
//
// The convention of prefixes: an error returned by a package starts with
// one prefix, once. The packages a user calls to train, predict and load
// (the root nsvm, model, paper, search, experiment, report, model/onnx)
// start theirs with "nsvm: "; the packages below them (data, kernel, nn,
// svm, svm/libsvm, the internal ones) and serve start theirs with their own
// name ("data: ", "svm: ", "serve: "), so that a message says where it
// comes from; a package above wraps them with its context (Strip removes a
// "nsvm: " it would repeat). Errors that callers branch on are types or
// sentinels (search.ConfigError, model.ErrBadData), never text: Detail
// gives a front end a message without its sentinel's words. Lists are cut
// short (List) and values quoted from the input are bounded.
// config_test.go (the root's TestErrorPrefixes) holds the convention.
package errmsg

import (
	"fmt"
	"strings"
)

const prefix = "nsvm: "

// Strip returns err with its message's leading "nsvm: " removed (its chain
// kept), for wrapping in a message that has its own.
func Strip(err error) error {
	if s := err.Error(); len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return Reword(s[len(prefix):], err)
	}
	return err
}

// Reword returns err said in other words: an error whose message is msg
// and whose chain is err's (errors.Is and errors.As find what err wraps).
func Reword(msg string, err error) error { return &reworded{msg: msg, err: err} }

type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }

// List joins names for a message: the first ten, then how many in all.
func List(names []string) string {
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(", … %d in all", len(names))
	}
	return strings.Join(names, ", ")
}

// Detail returns err's message without the words of the sentinel it wraps
// at its start ("nsvm: unusable data: "), for a front end that says in its
// own words what kind of error it is; err's message whole when it does not
// start with them.
func Detail(err, sentinel error) string {
	s, p := err.Error(), sentinel.Error()+": "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}
