package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

func main() {
	dim, _ := strconv.Atoi(os.Args[2])
	ds, err := data.Open(os.Args[1], data.OpenOptions{Dim: dim})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		time.Sleep(time.Duration(0.5 * float64(time.Second)))
		runtime.GC()
		f, _ := os.Create("/tmp/heap.prof")
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
		fmt.Println("profile written")
	}()
	cfg := &nsvm.FitConfig{}
	if len(os.Args) > 3 {
		cfg.Algorithm = os.Args[3]
	}
	_, err = nsvm.Fit(ctx, ds, cfg)
	fmt.Println(err)
	time.Sleep(1 * time.Second)
}
