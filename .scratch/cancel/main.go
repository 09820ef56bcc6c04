package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

func main() {
	ds, _ := data.Open(os.Args[1], data.OpenOptions{})
	d, _ := time.ParseDuration(os.Args[2])
	ctx, cancel := context.WithCancel(context.Background())
	var at time.Time
	go func() { time.Sleep(d); at = time.Now(); cancel() }()
	cfg := &nsvm.FitConfig{Algorithm: "smo", C: 100, Gamma: 1, CacheMB: 10}
	if len(os.Args) > 3 {
		cfg = &nsvm.FitConfig{}
	}
	_, err := nsvm.Fit(ctx, ds, cfg)
	fmt.Println(time.Since(at), err)
}
