package main

import "github.com/nsvm-go/nsvm/toy"

// toyCmd is "nsvm toy": svm-toy in the browser (package toy), until Ctrl-C.
func (e *env) toyCmd(args []string) error {
	c := toy.Config{Log: e.stderr}
	fs := e.newFlags("toy", "toy [--addr 127.0.0.1:8080]")
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "listening address (host:port)")
	fs.StringVar(&c.CacheDir, "cache", "", "`directory` of the built WebAssembly module (default: nsvm/toy in the user's cache directory)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	return toy.Serve(e.ctx, c)
}
