package vec

import "math"

// ExpTo sets dst[i] = exp(src[i]). dst and src may be the same slice.
//
// The result is within 2 ulp of the correctly rounded float32 exp for
// src[i] in [−88, 88]. Below that the result decays through the subnormal
// range and is exactly 0 for src[i] ≤ −104; above ln(MaxFloat32) ≈ 88.72 it
// is +Inf. NaN stays NaN. The pure-Go and assembly paths run the same
// algorithm (see exp32).
func ExpTo(dst, src []float32) {
	sameLen("ExpTo", len(dst), len(src))
	expTo(dst, src)
}

// expToGo is the pure-Go path of ExpTo.
func expToGo(dst, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = exp32(x)
	}
}

// Constants of the Cephes expf algorithm: x = n·ln2 + r with ln2 = expC1 +
// expC2 (expC1 has 9 significant bits, so n·expC1 is exact for |n| ≤ 2^15)
// and exp(r) ≈ 1 + r + r²·P(r) on |r| ≤ ln2/2.
const (
	expLo    = -104 // exp(−104) < MinFloat32/2: rounds to 0
	expHi    = 89   // exp(89) > MaxFloat32: overflows to +Inf
	expLog2e = 1.44269504088896341
	expC1    = 0.693359375
	expC2    = -2.12194440e-4
	expP0    = 1.9875691500e-4
	expP1    = 1.3981999507e-3
	expP2    = 8.3334519073e-3
	expP3    = 4.1665795894e-2
	expP4    = 1.6666665459e-1
	expP5    = 5.0000001201e-1
)

// exp32 is the scalar form of the vector exp: clamp x to [−104, 89], reduce
// by n = round(x·log₂e), evaluate the degree-5 polynomial and scale by 2ⁿ as
// 2^(n>>1)·2^(n−n>>1) so that both factors are normal floats and subnormal
// results are rounded once.
func exp32(x float32) float32 {
	if x != x {
		return x
	}
	if x < expLo {
		x = expLo
	} else if x > expHi {
		x = expHi
	}
	// Round x·log₂e to nearest (ties away from zero; the assembly rounds
	// ties to even, which changes nothing: |r| ≤ ln2/2 either way).
	t := x * expLog2e
	if t < 0 {
		t -= 0.5
	} else {
		t += 0.5
	}
	n := int32(t)
	fn := float32(n)
	r := x - fn*expC1
	r -= fn * expC2
	p := float32(expP0)
	p = p*r + expP1
	p = p*r + expP2
	p = p*r + expP3
	p = p*r + expP4
	p = p*r + expP5
	y := p*(r*r) + r + 1
	n1 := n >> 1
	n2 := n - n1
	y *= math.Float32frombits(uint32(n1+127) << 23)
	return y * math.Float32frombits(uint32(n2+127)<<23)
}
