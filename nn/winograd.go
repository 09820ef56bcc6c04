package nn

import (
	"math"

	"github.com/nsvm-go/nsvm/internal/vec"
)

// Winograd's minimal filtering for the training passes of a convolution.
//
// F(m×m, r×r) computes an m×m tile of a convolution's output from an α×α
// tile of its input (α = m+r−1) with α² multiplications per input and
// output channel instead of m²r² (A. Lavin and S. Gray, "Fast algorithms
// for convolutional neural networks", CVPR 2016):
//
//	Y = Aᵀ [ (G W Gᵀ) ⊙ (Bᵀ D B) ] A
//
// where D is the input tile, W the r×r kernel, and the sum over input
// channels is taken in the transformed domain, one product per position ξ
// of the α×α tile: M_ξ = V_ξ·U_ξᵀ with V_ξ the transformed input tiles
// (tiles·samples × channels) and U_ξ the transformed kernels (outputs ×
// channels). The backward passes are the adjoints of the same linear maps:
//
//	∂M = A ∂Y Aᵀ,  ∂U_ξ = ∂M_ξᵀ·V_ξ,  ∂W = Gᵀ ∂U G,
//	∂V_ξ = ∂M_ξ·U_ξ,  ∂D = B ∂V Bᵀ (added over overlapping tiles),
//
// so the gradients are exactly those of the Winograd forward pass, which
// equals the direct convolution up to rounding. A layer uses 4×4 tiles
// when they cover its output, else 2×2 tiles. For 5×5 kernels that is 64
// multiplications per 4×4 outputs (α = 8), or 36 per 2×2 (α = 6), against
// 400 and 100; for 3×3, 36 per 4×4 or 16 per 2×2 against 144 and 36. The
// transforms cost less per output with the larger tiles too. The image
// CNN's second convolution (32 → 64 channels, 5×5, an 8×8 output) trained
// a step of BenchmarkImageCNNStep64 in 14.4–18.3 ms with 2×2 tiles and in
// 11.8–13.0 ms with 4×4 (BenchmarkConvTrain/winograd 6.3–7.7 → 4.3–4.8 ms).
//
// The matrices come from the Toom-Cook construction (toomCook) on the
// points 0, 1, −1, 2, −2, ½, −½ (F(4, 5)), 0, 1, −1, 2, −2 (F(4, 3) and
// F(2, 5), whose Bᵀ is the integer data transform of F(4, 3)) or 0, 1, −1
// (F(2, 3)), and ∞. In float32 the relative error of the forward pass
// against the direct sum of products is a few 10⁻⁶ (TestWinogradMatchesDirect:
// 1.1·10⁻⁶ for F(2, 5), 3–5·10⁻⁶ for F(4, 5), 1.2–1.4·10⁻⁶ for F(4, 3); the
// direct sum's own is a few 10⁻⁷); winograd_test.go compares both passes
// with the direct convolution.
//
// Every step is a product vec.Sgemm computes: the data is laid out so that
// the transforms are small matrices applied to long rows. The input is
// permuted to XT[pixel][sample][channel]; the transform along the tile's
// rows is one product per row of tiles, Bᵀ·XT[m·ty … m·ty+α−1], and along its
// columns one per tile and row of the result; the transformed tiles land in
// V[ξ][tile][sample][channel], so that V_ξ is a (tiles·samples) × channels
// matrix and the products are one GEMM per ξ. The output transform reads
// M[ξ][tile][sample][output] with (Aᵀ⊗Aᵀ) and writes YT[pixel][sample]
// [output], which is permuted back to the network's channel-first layout.
//
// Only the training passes use it: inference (Features, Forward with train
// false) keeps the direct convolution, whose output for a sample does not
// depend on the samples computed with it. The multiply-adds of every
// product, transforms included, are what Net's Work counts for these
// passes.

// winoMats are the matrices of F(m×m, r×r), α = m+r−1, row-major: at is
// Aᵀ (m×α), g is G (α×r), bt is Bᵀ (α×α); gt, btT and atT are Gᵀ, B and
// A, for the adjoints.
type winoMats struct {
	m, r, a   int
	at, g, bt []float32
	gt, btT   []float32 // Gᵀ (r×α) and B (α×α)
	atT       []float32 // A (α×m)
}

// winoFor returns the matrices of Winograd's algorithm for a k×k kernel
// and an output of ho×wo pixels, or nil when there are none: F(4×4, k×k)
// when 4×4 tiles cover the output, else F(2×2, k×k) when 2×2 tiles do.
func winoFor(k, ho, wo int) *winoMats {
	for _, m := range []*winoMats{wino43, wino45, wino3, wino5} {
		if m.r == k && ho%m.m == 0 && wo%m.m == 0 {
			return m
		}
	}
	return nil
}

var (
	// F(2, 3) on the points 0, 1, −1, ∞.
	wino3 = newWinoMats(3,
		[]float64{1, 1, 1, 0, 0, 1, -1, -1},
		[]float64{1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1},
		[]float64{1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1})
	// F(4, 3) and F(4, 5) on the points 0, 1, −1, 2, −2, ∞ and on those
	// and ½, −½ (Toom-Cook, toomCook).
	wino43 = toomCook(4, 3, []float64{0, 1, -1, 2, -2})
	wino45 = toomCook(4, 5, []float64{0, 1, -1, 2, -2, 0.5, -0.5})
	// F(2, 5) on the points 0, 1, −1, 2, −2, ∞.
	wino5 = newWinoMats(5,
		[]float64{1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 1},
		[]float64{
			1.0 / 4, 0, 0, 0, 0,
			-1.0 / 6, -1.0 / 6, -1.0 / 6, -1.0 / 6, -1.0 / 6,
			-1.0 / 6, 1.0 / 6, -1.0 / 6, 1.0 / 6, -1.0 / 6,
			1.0 / 24, 1.0 / 12, 1.0 / 6, 1.0 / 3, 2.0 / 3,
			1.0 / 24, -1.0 / 12, 1.0 / 6, -1.0 / 3, 2.0 / 3,
			0, 0, 0, 0, 1},
		[]float64{
			4, 0, -5, 0, 1, 0,
			0, -4, -4, 1, 1, 0,
			0, 4, -4, -1, 1, 0,
			0, -2, -1, 2, 1, 0,
			0, 2, -1, -2, 1, 0,
			0, 4, 0, -5, 0, 1})
)

// toomCook returns the matrices of F(m, r) on the α−1 finite points p and
// ∞ (α = m+r−1) by the transposition principle: F(m, r) is the transpose
// of the linear convolution of r and m coefficients, which evaluates both
// polynomials at the points (E_g, α×r, and E_h, α×m: the powers of a
// point, and at ∞ the leading coefficient), multiplies, and interpolates
// the product by E_s⁻¹ (E_s the α×α evaluation of degree α−1). So
// Aᵀ = E_hᵀ, G = E_g and Bᵀ = E_s⁻ᵀ. Row ξ of Bᵀ is then the coefficients
// of Π_{l≠ξ}(x − p_l) divided by f_ξ = Π_{l≠ξ}(p_ξ − p_l); the division is
// moved into G's row, so that Bᵀ, which transforms the data, has the
// polynomials' small exact coefficients.
func toomCook(m, r int, p []float64) *winoMats {
	a := m + r - 1
	if len(p) != a-1 {
		panic("nn: toomCook: wrong number of points")
	}
	pow := func(x float64, k int) float64 { return math.Pow(x, float64(k)) }
	at := make([]float64, m*a)
	g := make([]float64, a*r)
	bt := make([]float64, a*a)
	for xi, x := range p {
		f := 1.0
		coef := []float64{1} // Π_{l≠ξ}(x − p_l), lowest degree first
		for l, y := range p {
			if l == xi {
				continue
			}
			f *= x - y
			next := make([]float64, len(coef)+1)
			for k, c := range coef {
				next[k+1] += c
				next[k] -= c * y
			}
			coef = next
		}
		for i := 0; i < m; i++ {
			at[i*a+xi] = pow(x, i)
		}
		for k := 0; k < r; k++ {
			g[xi*r+k] = pow(x, k) / f
		}
		copy(bt[xi*a:], coef)
	}
	// ∞: the leading coefficients, and the last row of E_s⁻ᵀ, the
	// coefficients of Π_l(x − p_l).
	at[(m-1)*a+a-1] = 1
	g[(a-1)*r+r-1] = 1
	last := []float64{1}
	for _, y := range p {
		next := make([]float64, len(last)+1)
		for k, c := range last {
			next[k+1] += c
			next[k] -= c * y
		}
		last = next
	}
	copy(bt[(a-1)*a:], last)
	return newWinoMats(r, at, g, bt)
}

func newWinoMats(r int, at, g, bt []float64) *winoMats {
	a := int(math.Sqrt(float64(len(bt))))
	mt := len(at) / a
	f32 := func(v []float64) []float32 {
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	m := &winoMats{m: mt, r: r, a: a, at: f32(at), g: f32(g), bt: f32(bt)}
	m.gt = make([]float32, r*a)
	for i := 0; i < a; i++ {
		for j := 0; j < r; j++ {
			m.gt[j*a+i] = m.g[i*r+j]
		}
	}
	m.btT = make([]float32, a*a)
	for i := 0; i < a; i++ {
		for j := 0; j < a; j++ {
			m.btT[j*a+i] = m.bt[i*a+j]
		}
	}
	m.atT = make([]float32, a*mt)
	for i := 0; i < mt; i++ {
		for p := 0; p < a; p++ {
			m.atT[p*mt+i] = m.at[i*a+p]
		}
	}
	return m
}

// useWinograd reports whether the training passes of a conv stage use
// Winograd's algorithm: a 3×3 or 5×5 kernel, an output that whole 4×4 or
// 2×2 tiles cover, and at least winoMinChannels input channels (on
// fewer, the transforms cost more than the small channel products save:
// the first layer of an image network keeps the direct kernels, and so do
// both of the paper's MNIST CNN's, whose second convolution, 10 → 20
// channels, ran a training step 1.3 times slower by Winograd's algorithm
// on an AVX2 Xeon, where the image CNN's, 32 → 64, ran 1.3–1.5 times
// faster: BenchmarkCNNStep64 and BenchmarkImageCNNStep64).
func useWinograd(st stage) bool {
	return st.spec.Kind == Conv && stageWino(st) != nil && st.in.c >= winoMinChannels && !st.padOut
}

// stageWino returns winoFor of a stage's kernel and output.
func stageWino(st stage) *winoMats { return winoFor(st.spec.K, st.out.h, st.out.w) }

// winoMinChannels is the fewest input channels of a Winograd convolution.
const winoMinChannels = 16

// winoMACs returns the multiply-adds of the Winograd training passes of a
// conv stage on a part of n samples: forward, and backward with or without
// the input gradient. They are the sizes of the products the passes make.
func winoMACs(st stage, n int, needDx bool) (fwd, bwd int) {
	m := stageWino(st)
	a, r, mt := m.a, m.r, m.m
	cin, cout, w := st.in.c, st.out.c, st.in.w
	th, tw := st.out.h/mt, st.out.w/mt
	nc, nk, kc := n*cin, n*cout, cin*cout
	tiles := th * tw
	inT := th*a*a*w*nc + th*tw*a*a*a*nc // rows of tiles, then columns
	filt := a * r * kc * (r + a)
	prod := a * a * tiles * n * kc
	outT := tiles * nk * (a*a*mt + a*mt*mt) // along the tile's columns, then its rows
	fwd = inT + filt + prod + outT
	bwd = outT + prod + filt // ∂M, ∂U, ∂W
	if needDx {
		bwd += prod + inT // ∂V, ∂D
	}
	return fwd, bwd
}

// winoConv is the state of a conv layer's Winograd training passes.
type winoConv struct {
	m             *winoMats
	th, tw, tiles int
	outRow        []int32 // output pixel → its row in Y4 (ij·tiles + tile)
	off           []int   // tileOffsets for offNK = (outputs, samples)
	offNK         [2]int
	xt, z, zg, v  []float32 // XT, a row of tiles transformed along its rows, its windows gathered, V
	wt, u1, u, mm []float32 // W as (ky, kx) × (k, c), G·W, U, M
	y4            []float32 // Y4[ij][tile][s][k]
	dy4, dm, du   []float32
	dv, dz, dxt   []float32
	t1, dwt       []float32
	ot            []float32 // the output transform's half-way values
}

// tilesFor sets the tile counts and the output map for the layer's shape.
func (l *conv) tilesFor() *winoConv {
	wc := l.wino
	mt := wc.m.m
	th, tw := l.ho/mt, l.wo/mt
	if wc.outRow == nil {
		wc.th, wc.tw, wc.tiles = th, tw, th*tw
		wc.outRow = make([]int32, l.ho*l.wo)
		for ty := 0; ty < th; ty++ {
			for tx := 0; tx < tw; tx++ {
				for i := 0; i < mt; i++ {
					for j := 0; j < mt; j++ {
						wc.outRow[(mt*ty+i)*l.wo+mt*tx+j] = int32((i*mt+j)*th*tw + ty*tw + tx)
					}
				}
			}
		}
	}
	return wc
}

// winoForward is the conv's train-mode forward pass by Winograd's
// algorithm (see the file comment); it returns l.y.
func (l *conv) winoForward(x []float32, n int) []float32 {
	wc := l.tilesFor()
	m := wc.m
	a, mt, m2 := m.a, m.m, m.m*m.m
	cin, cout, h, w := l.cin, l.cout, l.h, l.w
	th, tw, tiles := wc.th, wc.tw, wc.tiles
	nc, nk, kc := n*cin, n*cout, cin*cout
	l.x = x[:n*cin*h*w]
	cs, ns := l.strides(n)

	// XT[p][s][c] = x(c, s, p).
	wc.xt = vec.Resize(wc.xt, h*w*nc)
	permuteIn(wc.xt, l.x, cin, n, h*w, cs, ns)

	// V[ξ=(i,j)][tile][s][c] = (Bᵀ D B)[i][j], a row of tiles at a time:
	// Z[i][col] = Σ_p Bᵀ[i][p]·XT[2ty+p][col], then for each i the windows
	// Zg[q][tx] = Z[i][2tx+q] and V[(i, j)][ty, tx] = Σ_q Bᵀ[j][q]·Zg[q][tx].
	wc.v = vec.Resize(wc.v, a*a*tiles*nc)
	wc.z = vec.Resize(wc.z, a*w*nc)
	wc.zg = vec.Resize(wc.zg, a*tw*nc)
	for ty := 0; ty < th; ty++ {
		gemm(false, false, a, w*nc, a, 1, m.bt, a, wc.xt[mt*ty*w*nc:], w*nc, 0, wc.z, w*nc)
		for i := 0; i < a; i++ {
			for q := 0; q < a; q++ {
				for tx := 0; tx < tw; tx++ {
					copy(wc.zg[(q*tw+tx)*nc:(q*tw+tx+1)*nc], wc.z[(i*w+mt*tx+q)*nc:])
				}
			}
			gemm(false, false, a, tw*nc, a, 1, m.bt, a, wc.zg, tw*nc, 0, wc.v[(i*a*tiles+ty*tw)*nc:], tiles*nc)
		}
	}

	// U[ξ][k][c] = (G W Gᵀ)[ξ] for every output k and input c.
	l.winoKernels()

	// M_ξ = U_ξ·V_ξᵀ: cout × (tiles·n), output-major.
	wc.mm = vec.Resize(wc.mm, a*a*tiles*nk)
	for xi := 0; xi < a*a; xi++ {
		gemm(false, true, cout, tiles*n, cin, 1, wc.u[xi*kc:], cin, wc.v[xi*tiles*nc:], cin, 0, wc.mm[xi*tiles*nk:], tiles*n)
	}

	// Y4[(i,j)][k][tile][s] = Σ_p Σ_q Aᵀ[i][p]·Aᵀ[j][q]·M_(p,q)[k][tile][s],
	// one index at a time: OT[p][j] = Σ_q Aᵀ[j][q]·M_(p,q), a product per p,
	// then Y4[i][(j, ·)] = Σ_p Aᵀ[i][p]·OT[p][(j, ·)], one product (α²m +
	// αm² multiply-adds a value of M's columns, not α²m²).
	cols := tiles * nk
	wc.ot = vec.Resize(wc.ot, a*mt*cols)
	for p := 0; p < a; p++ {
		gemm(false, false, mt, cols, a, 1, m.at, a, wc.mm[p*a*cols:], cols, 0, wc.ot[p*mt*cols:], cols)
	}
	wc.y4 = vec.Resize(wc.y4, m2*cols)
	gemm(false, false, mt, mt*cols, a, 1, m.at, a, wc.ot, mt*cols, 0, wc.y4, mt*cols)

	// y(k, s, p) = Y4[(i,j) of p][k][tile of p][s] + b[k], channel-first.
	l.y = vec.Resize(l.y, cout*n*l.ho*l.wo)
	tilesOut(l.y, wc.y4, cout, n, tiles*n, wc.tileOffsets(cout, n), l.b)
	if l.relu {
		reluTo(l.y, l.y)
	}
	return l.y
}

// winoKernels sets U = G W Gᵀ for the current weights: W is permuted to
// WT[(ky, kx)][k][c], then two products apply G along ky and along kx.
func (l *conv) winoKernels() {
	wc := l.wino
	m := wc.m
	a, r := m.a, m.r
	kc := l.cin * l.cout
	wc.wt = vec.Resize(wc.wt, r*r*kc)
	// l.wt is [k][c][ky][kx]: a kc × r² matrix; WT is its transpose.
	transpose(wc.wt, l.wt, kc, r*r)
	// U1[i][kx][kc] = Σ_ky G[i][ky]·WT[ky][kx][kc]
	wc.u1 = vec.Resize(wc.u1, a*r*kc)
	gemm(false, false, a, r*kc, r, 1, m.g, r, wc.wt, r*kc, 0, wc.u1, r*kc)
	// U[i][j][kc] = Σ_kx G[j][kx]·U1[i][kx][kc]
	wc.u = vec.Resize(wc.u, a*a*kc)
	for i := 0; i < a; i++ {
		gemm(false, false, a, kc, r, 1, m.g, r, wc.u1[i*r*kc:], kc, 0, wc.u[i*a*kc:], kc)
	}
}

// winoBackward is backward after winoForward: ∂W and ∂b into the
// gradients, and ∂x when needDx.
func (l *conv) winoBackward(dy []float32, n int, needDx bool) []float32 {
	wc := l.wino
	m := wc.m
	a, r, mt, m2 := m.a, m.r, m.m, m.m*m.m
	cin, cout, h, w := l.cin, l.cout, l.h, l.w
	th, tw, tiles := wc.th, wc.tw, wc.tiles
	nc, nk, kc := n*cin, n*cout, cin*cout
	np := n * l.ho * l.wo
	if l.relu {
		dy = fusedReluGrad(&l.dyr, dy, l.y, cout*np)
	}
	// ∂b[k] = Σ dy(k, ·).
	if len(l.ones) == 0 {
		l.ones = make([]float32, biasChunk)
		fill(l.ones, 1)
	}
	for c := 0; c < cout; c++ {
		row := dy[c*np : (c+1)*np]
		var s float32
		for p := 0; p < np; p += biasChunk {
			q := min(np, p+biasChunk)
			s += vec.Dot(row[p:q], l.ones[:q-p])
		}
		l.gb[c] += s
	}

	// dY4[(i,j) of p][k][tile of p][s] = dy(k, s, p); ∂M = (Aᵀ⊗Aᵀ)ᵀ·dY4,
	// output-major as M, one index at a time as the forward pass:
	// OT[i][q] = Σ_j A[q][j]·dY4[(i,j)], then ∂M[p][(q, ·)] = Σ_i
	// A[p][i]·OT[i][(q, ·)].
	cols := tiles * nk
	wc.dy4 = vec.Resize(wc.dy4, m2*cols)
	tilesIn(wc.dy4, dy, cout, n, tiles*n, wc.tileOffsets(cout, n))
	wc.ot = vec.Resize(wc.ot, a*mt*cols)
	for i := 0; i < mt; i++ {
		gemm(false, false, a, cols, mt, 1, m.atT, mt, wc.dy4[i*mt*cols:], cols, 0, wc.ot[i*a*cols:], cols)
	}
	wc.dm = vec.Resize(wc.dm, a*a*cols)
	gemm(false, false, a, a*cols, mt, 1, m.atT, mt, wc.ot, a*cols, 0, wc.dm, a*cols)

	// ∂U_ξ = ∂M_ξ·V_ξ: cout × cin.
	wc.du = vec.Resize(wc.du, a*a*kc)
	for xi := 0; xi < a*a; xi++ {
		gemm(false, false, cout, cin, tiles*n, 1, wc.dm[xi*tiles*nk:], tiles*n, wc.v[xi*tiles*nc:], cin, 0, wc.du[xi*kc:], cin)
	}
	// ∂W = Gᵀ ∂U G: T1[i][kx][kc] = Σ_j G[j][kx]·∂U[i][j][kc], then
	// ∂WT[ky][kx][kc] = Σ_i G[i][ky]·T1[i][kx][kc].
	wc.t1 = vec.Resize(wc.t1, a*r*kc)
	for i := 0; i < a; i++ {
		gemm(false, false, r, kc, a, 1, m.gt, a, wc.du[i*a*kc:], kc, 0, wc.t1[i*r*kc:], kc)
	}
	wc.dwt = vec.Resize(wc.dwt, r*r*kc)
	gemm(false, false, r, r*kc, a, 1, m.gt, a, wc.t1, r*kc, 0, wc.dwt, r*kc)
	// gw[k][c][ky][kx] += ∂WT[ky][kx][k][c]
	addTransposed(l.gw, wc.dwt, r*r, kc)

	if !needDx {
		return nil
	}
	// ∂V_ξ = ∂M_ξᵀ·U_ξ: (tiles·n) × cin.
	wc.dv = vec.Resize(wc.dv, a*a*tiles*nc)
	for xi := 0; xi < a*a; xi++ {
		gemm(true, false, tiles*n, cin, cout, 1, wc.dm[xi*tiles*nk:], tiles*n, wc.u[xi*kc:], cin, 0, wc.dv[xi*tiles*nc:], cin)
	}
	// ∂D = B ∂V Bᵀ, added over the overlapping tiles: along the columns,
	// ∂Zg[q][tx] = Σ_j Bᵀ[j][q]·∂V[(i,j)][ty, tx], added into
	// ∂Z[i][2tx+q]; along the rows, ∂XT[2ty+p] += Σ_i Bᵀ[i][p]·∂Z[i].
	wc.dxt = vec.Resize(wc.dxt, h*w*nc)
	clear(wc.dxt)
	wc.dz = vec.Resize(wc.dz, a*w*nc)
	wc.zg = vec.Resize(wc.zg, a*tw*nc)
	for ty := 0; ty < th; ty++ {
		clear(wc.dz)
		for i := 0; i < a; i++ {
			gemm(false, false, a, tw*nc, a, 1, m.btT, a, wc.dv[(i*a*tiles+ty*tw)*nc:], tiles*nc, 0, wc.zg, tw*nc)
			for q := 0; q < a; q++ {
				for tx := 0; tx < tw; tx++ {
					vec.Axpy(1, wc.zg[(q*tw+tx)*nc:(q*tw+tx+1)*nc], wc.dz[(i*w+mt*tx+q)*nc:(i*w+mt*tx+q+1)*nc])
				}
			}
		}
		gemm(false, false, a, w*nc, a, 1, m.btT, a, wc.dz, w*nc, 1, wc.dxt[mt*ty*w*nc:], w*nc)
	}
	// dx(c, s, p) = ∂XT[p][s][c], in the input's layout.
	l.dx = vec.Resize(l.dx, n*cin*h*w)
	cs, ns := l.strides(n)
	permuteOut(l.dx, wc.dxt, cin, n, h*w, cs, ns)
	return l.dx
}

// permuteIn sets dst[p·(n·nc) + s·nc + c] = src[c·cs + s·ns + p] for
// c < nc, s < n, p < hw: the planes of a channel-first (or sample-major)
// layout to rows of (sample, channel), one per pixel. It goes permInBlock
// pixels at a time, eight channels at a time within them, so that the
// reads run along eight planes and the writes fill eight consecutive values
// of a few rows: the rows lie n·nc floats apart, often a multiple of 4 KB,
// and the values of every row at once would compete for one cache set.
func permuteIn(dst, src []float32, nc, n, hw, cs, ns int) {
	rl := n * nc
	for p0 := 0; p0 < hw; p0 += permInBlock {
		p1 := min(hw, p0+permInBlock)
		for s := 0; s < n; s++ {
			c0 := 0
			for ; c0+8 <= nc; c0 += 8 {
				b := c0*cs + s*ns
				q0, q1, q2, q3, q4, q5, q6, q7 := planes8(src, b, cs, hw)
				o := s*nc + c0
				for p := p0; p < p1; p++ {
					d := dst[p*rl+o : p*rl+o+8]
					d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = q0[p], q1[p], q2[p], q3[p], q4[p], q5[p], q6[p], q7[p]
				}
			}
			for c := c0; c < nc; c++ {
				plane := src[c*cs+s*ns : c*cs+s*ns+hw]
				o := s*nc + c
				for p := p0; p < p1; p++ {
					dst[p*rl+o] = plane[p]
				}
			}
		}
	}
}

// planes8 returns the eight planes of hw values of buf that start at b,
// b+cs, …, b+7·cs: eight channels of one sample, for permuteIn and
// permuteOut.
func planes8(buf []float32, b, cs, hw int) (q0, q1, q2, q3, q4, q5, q6, q7 []float32) {
	return buf[b : b+hw], buf[b+cs : b+cs+hw], buf[b+2*cs : b+2*cs+hw], buf[b+3*cs : b+3*cs+hw],
		buf[b+4*cs : b+4*cs+hw], buf[b+5*cs : b+5*cs+hw], buf[b+6*cs : b+6*cs+hw], buf[b+7*cs : b+7*cs+hw]
}

// permInBlock is the pixels permuteIn moves at a time: fewer rows than an
// L1 cache set has ways.
const permInBlock = 8

// permuteOut is the inverse of permuteIn: dst[c·cs + s·ns + p] =
// src[p·(n·nc) + s·nc + c].
func permuteOut(dst, src []float32, nc, n, hw, cs, ns int) {
	rl := n * nc
	for s := 0; s < n; s++ {
		c0 := 0
		for ; c0+8 <= nc; c0 += 8 {
			b := c0*cs + s*ns
			p0, p1, p2, p3, p4, p5, p6, p7 := planes8(dst, b, cs, hw)
			o := s*nc + c0
			for p := 0; p < hw; p++ {
				v := src[p*rl+o : p*rl+o+8]
				p0[p], p1[p], p2[p], p3[p] = v[0], v[1], v[2], v[3]
				p4[p], p5[p], p6[p], p7[p] = v[4], v[5], v[6], v[7]
			}
		}
		for c := c0; c < nc; c++ {
			plane := dst[c*cs+s*ns : c*cs+s*ns+hw]
			o := s*nc + c
			for p := range plane {
				plane[p] = src[p*rl+o]
			}
		}
	}
}

// tileOffsets returns, for each output pixel p, the offset in Y4 of its
// value for output 0 and sample 0, ((i,j)·nk·tiles + tile)·n (see tilesFor's
// outRow), for nk outputs and n samples.
func (wc *winoConv) tileOffsets(nk, n int) []int {
	if wc.offNK != [2]int{nk, n} {
		wc.off = make([]int, len(wc.outRow))
		for p, r := range wc.outRow {
			ij, t := int(r)/wc.tiles, int(r)%wc.tiles
			wc.off[p] = (ij*nk*wc.tiles + t) * n
		}
		wc.offNK = [2]int{nk, n}
	}
	return wc.off
}

// tilesOut sets y(k, s, p) = Y4[(i,j)][k][t][s] + bias[k] for the
// output pixel p = (m·ty+i)·wo + m·tx+j of tile t = ty·(wo/m) + tx (m×m
// tiles), y channel-first (nk planes of n samples of hw pixels); tn is
// tiles·n, the values of Y4 for one (i,j) and output; off is
// tileOffsets(nk, n). It writes a plane at a time, reading Y4 through off.
func tilesOut(y, y4 []float32, nk, n, tn int, off []int, bias []float32) {
	hw := len(off)
	for k := 0; k < nk; k++ {
		b := bias[k]
		for s := 0; s < n; s++ {
			plane := y[(k*n+s)*hw : (k*n+s+1)*hw]
			src := y4[k*tn+s:]
			for p, o := range off {
				plane[p] = src[o] + b
			}
		}
	}
}

// tilesIn is the inverse of tilesOut without the bias: dY4[(i,j)][k][t][s]
// = dy(k, s, p).
func tilesIn(dy4, dy []float32, nk, n, tn int, off []int) {
	hw := len(off)
	for k := 0; k < nk; k++ {
		for s := 0; s < n; s++ {
			plane := dy[(k*n+s)*hw : (k*n+s+1)*hw]
			dst := dy4[k*tn+s:]
			for p, o := range off {
				dst[o] = plane[p]
			}
		}
	}
}

// addTransposed adds the transpose of src (rows × cols) into dst (cols ×
// rows).
func addTransposed(dst, src []float32, rows, cols int) {
	for i := 0; i < rows; i++ {
		s := src[i*cols : (i+1)*cols]
		for j, v := range s {
			dst[j*rows+i] += v
		}
	}
}
