//go:build amd64 && !noasm

package vec

import "unsafe"

// Blocking of the AVX2 GEMM. The micro-kernel keeps a 6×16 block of C in
// twelve YMM registers. For each kcBlk-deep slice of op(B) a panel of at most
// ncBlk columns is packed into 16-wide strips (kc×16, contiguous); op(A) is
// read in place, six rows at a time, mcBlk rows per pass over the strips, so
// that a strip stays in L1 and the mcBlk×kc block of A in L2.
const (
	mrK   = 6
	nrK   = 16
	kcBlk = 256
	mcBlk = 144
	ncBlk = 4096

	// A non-transposed B is read in place (no packing) when C has at most
	// six rows (B is then read once anyway), or when k ≤ directMaxK and
	// either B is small (k·n ≤ directMaxB floats) or the product is shallow
	// (k ≤ 64) and C has so few rows (m ≤ directMaxM) that packing would
	// not be repaid.
	directMaxB = 1 << 16
	directMaxK = 512
	directMaxM = 4 * mrK

	// The inner-product path (NT) works on kcDot-deep slices of ncDot rows
	// of B, which then stay in L1 while all rows of A pass over them.
	kcDot = 256
	ncDot = 16
)

// kernArgs is the argument block of the assembly kernels; its layout is
// fixed by argOff in asm/gen.go (checked by TestKernArgsLayout).
type kernArgs struct {
	a, b, c *float32
	nt, k   int // column tiles per call, depth
	rsa     int // row stride of A (lda for the inner-product kernels)
	csa     int // column stride of A
	ldb     int // row stride of B
	bts     int // offset between consecutive column tiles of B
	ldc     int
	loadC   int // 1: C = alpha·AB + beta·C; 0: C = alpha·AB
	rem     int // valid columns in the last vector of masked kernels
	alpha   float32
	beta    float32
	ku      int // leading steps in which masked kernels may read B at full width
}

// The assembly kernels take a pointer to a kernArgs as *int64 (the
// generator does not see Go types).
func (ka *kernArgs) ptr() *int64 { return (*int64)(unsafe.Pointer(ka)) }

// Kernel variants: 8 columns, masked 8, 16 columns, masked 16.
const (
	k8 = iota
	k8m
	k16
	k16m
)

func addp(p *float32, n int) *float32 {
	return (*float32)(unsafe.Add(unsafe.Pointer(p), 4*n))
}

// gemmJob carries one checked Sgemm call through the drivers.
type gemmJob struct {
	a, b, c        []float32
	m, n, k        int
	lda, ldb, ldc  int
	alpha, beta    float32
	transA, transB bool
}

// set fills j with the arguments of an Sgemm call. Field by field, here and
// for kernArgs below: a composite literal is built by copying a template in
// 16-byte moves over fresh 8-byte stores, which defeats store forwarding and
// costs more than a small product.
func (j *gemmJob) set(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	j.a, j.b, j.c = a, b, c
	j.m, j.n, j.k = m, n, k
	j.lda, j.ldb, j.ldc = lda, ldb, ldc
	j.alpha, j.beta = alpha, beta
	j.transA, j.transB = transA, transB
}

// sgemm is Sgemm's implementation on amd64 for m, n, k ≥ 1 and alpha ≠ 0
// (arguments already checked): the AVX2/FMA kernels when the CPU has them,
// sgemmGo otherwise. It is kept shallow, as the batch-1 products of a
// training step cost little more than the calls that reach the kernels.
func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !hasAVX2FMA {
		sgemmGo(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if n == 1 && m > 1 && ldc == 1 && transA {
		// A contiguous column of C: compute its transpose, the row
		// Cᵀ = op(B)ᵀ·op(A)ᵀ, which the row kernels handle well.
		transA, transB = !transB, !transA
		m, n = 1, m
		a, b = b, a
		lda, ldb = ldb, lda
		ldc = n
	}
	if m*n*k >= parMinWork {
		if nw := gemmWorkers(m, n, k); nw > 1 {
			gemmSplit(sgemmAVXSerial, nw, mrK, nrK, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			return
		}
	}
	var j gemmJob
	j.set(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	j.run()
}

// sgemmAVXSerial runs one block of a split product on the calling goroutine.
func sgemmAVXSerial(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	var j gemmJob
	j.set(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	j.run()
}

// run picks one of the single-threaded strategies.
func (j *gemmJob) run() {
	m, n, k := j.m, j.n, j.k
	switch {
	case k == 1 && !j.transB:
		j.ger()
	case !j.transB && (m <= mrK || k <= directMaxK && (k*n <= directMaxB || m <= directMaxM && k <= 64)):
		j.direct()
	case j.transB && useDot(m, n, k):
		if j.transA {
			j.dotTT()
		} else {
			j.dot()
		}
	default:
		j.packed()
	}
}

// useDot reports whether C = op(A)·Bᵀ is better done as blocks of inner
// products (no packing; a horizontal sum per element of C) than by packing
// Bᵀ for the outer-product kernels.
func useDot(m, n, k int) bool {
	return m < 4 || n < 4 || k >= 128
}

// kernZRows is the number of rows of the AVX-512 kernel kernz12x16 (as in
// asm/gen.go).
const kernZRows = 12

// rowPanels runs the kernels over rows i0 ≤ i < m of C, mrK at a time, or
// kernZRows at a time on the AVX-512 kernel while that many are left (when
// the CPU has it and C has a full 16-column tile): set(i) points ka.a and
// ka.c at row i, then panel covers n columns (see panel).
func rowPanels(ka *kernArgs, m, n int, packedB bool, set func(i int)) {
	i := 0
	if hasAVX512 && n >= nrK {
		for ; i+kernZRows <= m; i += kernZRows {
			set(i)
			panelZ(ka, n, packedB)
		}
	}
	for ; i < m; i += mrK {
		set(i)
		panel(ka, min(mrK, m-i), n, packedB)
	}
}

// panelZ is panel for kernZRows rows: the full 16-column tiles in one call
// of the AVX-512 kernel (which sums each element of C as kern6x16 does), the
// edge tile of each half of the rows with the AVX2 kernels.
func panelZ(ka *kernArgs, n int, packedB bool) {
	ka.nt = n / nrK
	kernz12x16(ka.ptr())
	if n%nrK == 0 {
		return
	}
	a0, c0 := ka.a, ka.c
	for h := 0; h < kernZRows; h += mrK {
		ka.a, ka.c = addp(a0, h*ka.rsa), addp(c0, h*ka.ldc)
		panelEdge(ka, mrK, n, packedB)
	}
	ka.a, ka.c = a0, c0
}

// panel runs the mr-row kernels over n columns from ka.b and ka.c: full
// 16-column tiles in one call, then the masked edge tile. packedB says that
// B is a packed strip (16 floats per row, whatever n).
func panel(ka *kernArgs, mr, n int, packedB bool) {
	nt := n / nrK
	if nt > 0 {
		ka.nt = nt
		kern(mr, k16, ka)
	}
	panelEdge(ka, mr, n, packedB)
}

// panelEdge runs panel's kernel for the edge tile past the last full
// 16-column tile, if any.
func panelEdge(ka *kernArgs, mr, n int, packedB bool) {
	nt := n / nrK
	rem := n % nrK
	if rem == 0 {
		return
	}
	// Full-width reads of B past column n stay inside B: in a packed strip
	// always, in place for every row but the last when rows are ≥ 8 apart.
	switch {
	case packedB:
		ka.ku = ka.k
	case ka.ldb >= 8:
		ka.ku = ka.k - 1
	default:
		ka.ku = 0
	}
	b0, c0 := ka.b, ka.c
	ka.nt = 1
	ka.b = addp(b0, nt*ka.bts)
	ka.c = addp(c0, nt*nrK)
	switch {
	case rem < 8:
		ka.rem = rem
		kern(mr, k8m, ka)
	case rem == 8:
		kern(mr, k8, ka)
	default:
		ka.rem = rem - 8
		kern(mr, k16m, ka)
	}
	ka.b, ka.c = b0, c0
}

func (j *gemmJob) strides() (rsa, csa int) {
	if j.transA {
		return 1, j.lda
	}
	return j.lda, 1
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// direct reads both operands in place: B (not transposed) by rows, op(A)
// through element strides.
func (j *gemmJob) direct() {
	rsa, csa := j.strides()
	var ka kernArgs
	ka.b, ka.k, ka.rsa, ka.csa, ka.ldb, ka.bts, ka.ldc = &j.b[0], j.k, rsa, csa, j.ldb, nrK, j.ldc
	ka.loadC, ka.alpha, ka.beta = b2i(j.beta != 0), j.alpha, j.beta
	rowPanels(&ka, j.m, j.n, false, func(i int) { ka.a, ka.c = &j.a[i*rsa], &j.c[i*j.ldc] })
}

// ger is the rank-1 case k = 1 with B not transposed, in one kernel call.
func (j *gemmJob) ger() {
	rsa, _ := j.strides()
	var ka kernArgs
	ka.a, ka.b, ka.c = &j.a[0], &j.b[0], &j.c[0]
	ka.nt, ka.k, ka.rsa, ka.ldc = j.m, j.n, rsa, j.ldc
	ka.loadC, ka.alpha, ka.beta = b2i(j.beta != 0), j.alpha, j.beta
	gerAVX(ka.ptr())
}

// packB copies op(B)[p0:p0+kc, j0:j0+nc] into dst as ⌈nc/16⌉ strips of kc×16
// floats (strip t, row p, column j at dst[t·kc·16 + p·16 + j]). Columns past
// nc in the last strip are left as they are: the kernels never use them.
func packB(dst []float32, transB bool, b []float32, ldb, p0, kc, j0, nc int) {
	t := 0
	if !transB {
		// Full strips, up to four per pass; a copy call per 16 floats
		// would cost more than the data.
		for (t+1)*nrK <= nc {
			ns := min(4, nc/nrK-t)
			jt := j0 + t*nrK
			_ = b[(p0+kc-1)*ldb+jt+ns*nrK-1]
			_ = dst[(t+ns)*kc*nrK-1]
			packBNAVX(&dst[t*kc*nrK], &b[p0*ldb+jt], ldb, kc, ns)
			t += ns
		}
	}
	for ; t*nrK < nc; t++ {
		w := min(nrK, nc-t*nrK)
		s := dst[t*kc*nrK : (t+1)*kc*nrK]
		jt := j0 + t*nrK
		if !transB {
			for p := 0; p < kc; p++ {
				o := (p0+p)*ldb + jt
				copy(s[p*nrK:p*nrK+w], b[o:o+w])
			}
			continue
		}
		// Groups of eight rows of B: 8×8 blocks transposed in registers;
		// the rest element by element.
		p8, h := kc&^7, w/8
		if p8 == 0 {
			h = 0
		}
		if h > 0 {
			_ = b[(jt+8*h-1)*ldb+p0+p8-1]
			packBTAVX(&s[0], &b[jt*ldb+p0], ldb, p8, h)
		}
		for jj := 0; jj < w; jj++ {
			lo := 0
			if jj < 8*h {
				lo = p8
			}
			o := (jt+jj)*ldb + p0
			src := b[o+lo : o+kc]
			d := s[lo*nrK:]
			for p, v := range src {
				d[p*nrK+jj] = v
			}
		}
	}
}

// packed is the blocked path: op(B) packed per kc×nc block, op(A) read in
// place.
func (j *gemmJob) packed() {
	rsa, csa := j.strides()
	m, n, k := j.m, j.n, j.k
	kcMax := min(k, kcBlk)
	ncMax := min(n, ncBlk)
	bufp := getBuf(kcMax * ((ncMax + nrK - 1) / nrK) * nrK)
	buf := *bufp
	var ka kernArgs
	ka.rsa, ka.csa, ka.ldb, ka.ldc, ka.alpha = rsa, csa, nrK, j.ldc, j.alpha
	for jc := 0; jc < n; jc += ncBlk {
		nc := min(ncBlk, n-jc)
		for pc := 0; pc < k; pc += kcBlk {
			kc := min(kcBlk, k-pc)
			packB(buf, j.transB, j.b, j.ldb, pc, kc, jc, nc)
			ka.k, ka.bts = kc, kc*nrK
			ka.beta, ka.loadC = j.beta, b2i(j.beta != 0)
			if pc > 0 {
				ka.beta, ka.loadC = 1, 1
			}
			if kc < 64 {
				// Shallow products: whole row panels per call.
				ka.b = &buf[0]
				rowPanels(&ka, m, nc, true, func(i int) { ka.a, ka.c = &j.a[i*rsa+pc*csa], &j.c[i*j.ldc+jc] })
				continue
			}
			for ic := 0; ic < m; ic += mcBlk {
				mc := min(mcBlk, m-ic)
				for jr := 0; jr < nc; jr += nrK {
					w := min(nrK, nc-jr)
					ka.b = &buf[(jr/nrK)*kc*nrK]
					rowPanels(&ka, mc, w, true, func(i int) { ka.a, ka.c = &j.a[(ic+i)*rsa+pc*csa], &j.c[(ic+i)*j.ldc+jc+jr] })
				}
			}
		}
	}
	bufPool.Put(bufp)
}

// dot computes C = alpha·A·Bᵀ + beta·C from inner products of rows of A
// and rows of B, in blocks of 3×4 elements of C.
func (j *gemmJob) dot() {
	m, n, k := j.m, j.n, j.k
	var ka kernArgs
	ka.rsa, ka.ldb, ka.ldc, ka.alpha = j.lda, j.ldb, j.ldc, j.alpha
	for pc := 0; pc < k; pc += kcDot {
		ka.k = min(kcDot, k-pc)
		ka.beta, ka.loadC = j.beta, b2i(j.beta != 0)
		if pc > 0 {
			ka.beta, ka.loadC = 1, 1
		}
		// ncDot rows of B, or more while the slice stays within 16 KiB.
		ncd := max(ncDot, 4096/ka.k&^3)
		for jc := 0; jc < n; jc += ncd {
			nc := min(ncd, n-jc)
			nt, rem := nc/4, nc%4
			for i := 0; i < m; i += 3 {
				mr := min(3, m-i)
				ka.a = &j.a[i*j.lda+pc]
				if nt > 0 {
					ka.nt, ka.b, ka.c = nt, &j.b[jc*j.ldb+pc], &j.c[i*j.ldc+jc]
					dotKern(mr, 4, &ka)
				}
				if rem > 0 {
					jj := jc + nt*4
					ka.nt, ka.b, ka.c = 1, &j.b[jj*j.ldb+pc], &j.c[i*j.ldc+jj]
					dotKern(mr, rem, &ka)
				}
			}
		}
	}
}

// dotTT handles C = alpha·Aᵀ·Bᵀ + beta·C for thin products by copying op(A)
// = Aᵀ into a row-major scratch block and running dot.
func (j *gemmJob) dotTT() {
	m, k := j.m, j.k
	var small [512]float32
	var at []float32
	var bufp *[]float32
	if m*k <= len(small) {
		at = small[:m*k]
	} else {
		bufp = getBuf(m * k)
		at = (*bufp)[:m*k]
	}
	for p := 0; p < k; p++ {
		row := j.a[p*j.lda : p*j.lda+m]
		for i, v := range row {
			at[i*k+p] = v
		}
	}
	// A local job, so that the scratch block can stay on the stack.
	var jt gemmJob
	jt.a, jt.b, jt.c = at, j.b, j.c
	jt.m, jt.n, jt.k = m, j.n, k
	jt.lda, jt.ldb, jt.ldc = k, j.ldb, j.ldc
	jt.alpha, jt.beta, jt.transB = j.alpha, j.beta, true
	jt.dot()
	if bufp != nil {
		bufPool.Put(bufp)
	}
}

// sgemmDots is SgemmDots for m, n, k ≥ 1 and alpha ≠ 0: the inner-product
// kernels, whose k-slices and per-element sums do not depend on m or n.
func sgemmDots(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !hasAVX2FMA {
		sgemmGoSerial(false, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	var j gemmJob
	j.set(false, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	j.dot()
}
