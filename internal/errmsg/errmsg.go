// Package errmsg shapes the library's error messages: every message starts
// with "nsvm: " once, lists are cut short, and values quoted from the input
// are bounded.
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
		return &stripped{msg: s[len(prefix):], err: err}
	}
	return err
}

type stripped struct {
	msg string
	err error
}

func (s *stripped) Error() string { return s.msg }
func (s *stripped) Unwrap() error { return s.err }

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
