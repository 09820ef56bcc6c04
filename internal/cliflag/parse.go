package cliflag

import (
	"errors"
	"flag"
	"strings"
)

// ValueError is a flag's value its Set refused, with the error Set
// returned (which the flag package would reduce to text).
type ValueError struct {
	Flag string
	Err  error
}

func (e *ValueError) Error() string {
	var named *Error
	if errors.As(e.Err, &named) {
		return named.Msg // it names its flag
	}
	return "--" + e.Flag + ": " + e.Err.Error()
}

func (e *ValueError) Unwrap() error { return e.Err }

// Parse parses args into fs and returns the positional arguments: flags
// may come before, between or after them ("--" ends the flags). A flag fs
// does not define is an *Error that names, when hints has it, the flag
// doing its work here (svm-train's -c is --C: hints["c"] = "--C"; -wN, a
// class weight, is --class-weight N:W). A refused value is a *ValueError.
// -h and --help print fs's usage and return flag.ErrHelp; svm-train's
// "-h 0" and "-h 1" are refused.
func Parse(fs *flag.FlagSet, args []string, tool string, hints map[string]string) ([]string, error) {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" && i+1 < len(args) && (args[i+1] == "0" || args[i+1] == "1") {
			return nil, Errorf("-h %s is svm-train's shrinking switch; nsvm's SMO always shrinks (leave it out)", args[i+1])
		}
	}
	if err := undefined(fs, args, tool, hints); err != nil {
		return nil, err
	}
	var failed error
	fs.VisitAll(func(f *flag.Flag) { f.Value = keep{f.Value, f.Name, &failed} })
	// The flags get their own values back before the usage is printed
	// (which asks a zero value of each type for its default) and on return.
	unwrap := func() {
		fs.VisitAll(func(f *flag.Flag) {
			if k, ok := f.Value.(keep); ok {
				f.Value = k.Value
			}
		})
	}
	defer unwrap()
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			switch {
			case errors.Is(err, flag.ErrHelp):
				unwrap()
				usage()
				return nil, err
			case failed != nil:
				return nil, failed
			}
			return nil, Errorf("%v", err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// undefined returns the error of the first flag in args that fs does not
// define (skipping the values of the flags it does); nil when every flag
// is defined.
func undefined(fs *flag.FlagSet, args []string, tool string, hints map[string]string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
				i++ // its value
			}
			continue
		}
		switch {
		case name == "h" || name == "help":
			continue
		case hints[name] != "":
			return Errorf("-%s is %s's; use %s", name, tool, hints[name])
		case tool != "" && len(name) > 1 && name[0] == 'w' && strings.Trim(name[1:], "-0123456789") == "":
			return Errorf("-%s is %s's; use --class-weight %s:W", name, tool, name[1:])
		}
		return Errorf("no flag %s", a)
	}
	return nil
}

// keep keeps the error of a flag's Set.
type keep struct {
	flag.Value
	name string
	err  *error
}

func (k keep) Set(s string) error {
	err := k.Value.Set(s)
	if err != nil && *k.err == nil {
		*k.err = &ValueError{k.name, err}
	}
	return err
}

func (k keep) IsBoolFlag() bool {
	b, ok := k.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// SVMTrainHints are svm-train's and svm-predict's options that nsvm spells
// otherwise, with the spelling here (Parse's hints).
var SVMTrainHints = map[string]string{
	"s": "--svm-type c-svc|nu-svc|one-class|epsilon-svr|nu-svr",
	"t": "--kernel linear|poly|rbf|sigmoid|precomputed",
	"d": "--degree", "g": "--gamma", "r": "--coef0", "c": "--C", "n": "--nu", "p": "--epsilon",
	"m": "--cache-mb", "e": "--eps", "b": "--probability", "v": "--cv", "q": "--quiet",
}
