// Package vec holds the hot loops of nsvm: dot products, axpy, squared
// distances, a vectorised exp and single-precision GEMM/GEMV.
//
// All data is float32 and row-major. Functions that write take the
// destination first and end in To where they fill a caller-owned slice;
// inputs are never mutated. Length mismatches are programmer errors and
// panic with a "vec:" prefix.
//
// # Where the paper's quantities meet these loops
//
// A kernel row K(z_s, b) over the stored support features Z (the paper's
// g̃_t sums, §3) is one Sgemv (‖z_s‖² + ‖b‖² − 2 z_s·b, with ‖z_s‖² from
// SqNormsTo) followed by ExpTo for the RBF kernel exp(−γ‖a−b‖²); kernel
// matrices of a batch (Algorithms 3 and 4) are one Sgemm Z·Zᵀ; every layer of
// the feature map F_θ is an Sgemm (dense layers directly, convolutions after
// im2col) forward and two Sgemm calls backward (∂/∂W and ∂/∂X).
//
// # Implementations
//
// Every function has a pure-Go path in this package; SgemmRef is the plain
// triple loop that defines Sgemm's semantics. On amd64 CPUs with AVX2 and
// FMA3 (detected once at start-up with golang.org/x/sys/cpu) Sgemm, Dot,
// Dot64, SqNorm, SqDist, Axpy, ExpTo and the kernel-row kernels (PanelDots,
// RBFArg, DotMixed, PanelRBF) run assembly kernels; building with the noasm
// tag, or on another architecture, uses the pure-Go paths everywhere, and
// so does running with GODEBUG=cpu.avx2=off (x/sys/cpu reads it): on amd64
// that trains bit for bit what a noasm build and WebAssembly (the svm-toy
// page) train. Tests
// compare each path against the references. Where the CPU also has AVX-512
// (F), PanelDots, ExpTo and PanelRBF use 16-lane forms that run the same
// instructions per lane as the 8-lane ones, and Sgemm a 12×16 outer-product
// kernel (one 16-lane register per row of C) that gives every element the
// fused multiply-adds of the AVX2 6×16 kernel in the same order, so their
// results are identical (tested): a model trains the same on either kind of
// machine.
//
// The assembly (kernels_amd64.s, kernels_stub_amd64.go) is generated with
// avo by asm/gen.go, a separate module so that the generator's dependencies
// stay out of nsvm's go.mod; regenerate with go generate. The GEMM has three
// strategies, chosen per call from the shape:
//
//   - outer-product micro-kernels of up to 6×16 elements of C held in
//     registers, reading op(A) in place through element strides and B either
//     in place (small or shallow B) or packed into 16-column strips per
//     256-deep slice (Bᵀ packed by an in-register 8×8 transpose);
//   - blocks of 3×4 inner products for A·Bᵀ when C is thin or k is long
//     (the weight gradient of a convolution: k = batch·pixels);
//   - a rank-1 kernel for k = 1 (the weight gradient of a batch of one).
//
// Edge tiles use masked loads and plain partial stores. Products with
// m·n·k ≥ 2^18 are split by blocks of rows or columns of C over up to
// GOMAXPROCS goroutines; smaller ones run on the calling goroutine and do
// not allocate (packing buffers come from a sync.Pool). Fast paths sum in a
// different order and with fused multiply-adds, so they agree with the
// references to rounding, not bit for bit.
//
// The convolutions of nn have kernels of their own (ConvForward,
// ConvWeightGrad, ConvInputGrad): products with the im2col matrix of an
// input that never build it, reading the input through tables of offsets
// (implicit im2col) in vectors of eight output pixels, with up to 6×24
// outputs, twelve weight-gradient sums or 6×16 input-gradient terms in
// registers; MaxPool2 and MaxPool2Grad are the two passes of a 2×2
// max-pool in one kernel each. They run on the calling goroutine and
// allocate nothing; their pure-Go versions agree with them to rounding.
//
// ExpTo evaluates exp with the Cephes expf reduction and polynomial in both
// paths (within 2 ulp on [−88, 88]; subnormal results below, 0 from −104,
// +Inf above ≈ 88.72; NaN stays NaN).
package vec

//go:generate go run -C asm gen.go -out ../kernels_amd64.s -stubs ../kernels_stub_amd64.go -pkg vec
