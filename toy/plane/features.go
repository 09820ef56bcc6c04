package plane

import (
	"fmt"
	"math"
)

// FeatureMap is the plane as an NSVM's network maps it, seen in the plane
// of the features' first two principal components (on the training
// points): the features the SVM head sees, drawn flat, each axis scaled
// to fit.
type FeatureMap struct {
	// Points are the training points' features, projected: x, y pairs in
	// [0, 1], y upward.
	Points []float64
	// Lines are the lines x = i/(Lines−1) and y = j/(Lines−1) of the input
	// plane, each sampled at Samples points, mapped and projected in the
	// same way (x, y pairs, the vertical lines first); LineLabel is the
	// class predicted at each sample.
	Lines, LineLabel []float64
	NLines, Samples  int
	// Explained is the share of the features' variance the two axes hold,
	// and Second the second's share of it.
	Explained, Second float64
}

// Features maps the rows of the points x (two values each) and a grid of
// lines lines×lines through the network, and projects the features on
// their first two principal components over x. A model without a network
// has no feature map.
func (v View) Features(x []float32, lines, samples int) (*FeatureMap, error) {
	m := v.M
	if m.Net == nil || m.InSize() != 2 || m.Regression() {
		return nil, fmt.Errorf("plane: a feature map needs an NSVM classifier on two inputs")
	}
	n, d := len(x)/2, m.OutSize()
	if n < 2 {
		return nil, fmt.Errorf("plane: a feature map needs two points or more")
	}
	grid := make([]float32, 0, 2*2*lines*samples)
	for _, vertical := range []bool{true, false} {
		for i := range lines {
			a := float32(float64(i) / float64(lines-1))
			for s := range samples {
				b := float32(float64(s) / float64(samples-1))
				if vertical {
					grid = append(grid, a, b)
				} else {
					grid = append(grid, b, a)
				}
			}
		}
	}
	ng := len(grid) / 2
	z := make([]float32, (n+ng)*d)
	m.Features(z[:n*d], x, n)
	m.Features(z[n*d:], grid, ng)

	mean := make([]float64, d)
	for i := range n {
		for j, v := range z[i*d : (i+1)*d] {
			mean[j] += float64(v) / float64(n)
		}
	}
	cov := make([]float64, d*d)
	for i := range n {
		r := z[i*d : (i+1)*d]
		for a := range d {
			for b := range d {
				cov[a*d+b] += (float64(r[a]) - mean[a]) * (float64(r[b]) - mean[b]) / float64(n)
			}
		}
	}
	var total float64
	for a := range d {
		total += cov[a*d+a]
	}
	u1, l1 := topEigen(cov, d, nil)
	u2, l2 := topEigen(cov, d, u1)
	proj := make([]float64, 2*(n+ng))
	for i := range n + ng {
		var p, q float64
		for j, v := range z[i*d : (i+1)*d] {
			c := float64(v) - mean[j]
			p += c * u1[j]
			q += c * u2[j]
		}
		proj[2*i], proj[2*i+1] = p, q
	}
	// Scale each axis into [0.05, 0.95]: the second component, often
	// much smaller than the first, stays visible.
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := range n + ng {
		for k := range 2 {
			lo[k], hi[k] = min(lo[k], proj[2*i+k]), max(hi[k], proj[2*i+k])
		}
	}
	for i := range n + ng {
		for k := range 2 {
			proj[2*i+k] = 0.5 + 0.9*(proj[2*i+k]-(lo[k]+hi[k])/2)/max(hi[k]-lo[k], 1e-12)
		}
	}
	fm := &FeatureMap{Points: proj[:2*n], Lines: proj[2*n:], NLines: lines, Samples: samples, LineLabel: make([]float64, ng)}
	if total > 0 {
		fm.Explained = (l1 + l2) / total
	}
	if l1+l2 > 0 {
		fm.Second = l2 / (l1 + l2)
	}
	m.PredictBatch(fm.LineLabel, grid, ng)
	return fm, nil
}

// topEigen returns the unit eigenvector of the largest eigenvalue of the
// symmetric d×d matrix a, orthogonal to not (if not nil), by power
// iteration, and its eigenvalue.
func topEigen(a []float64, d int, not []float64) ([]float64, float64) {
	u := make([]float64, d)
	for j := range u {
		u[j] = 1 / math.Sqrt(float64(d)) * (1 + 0.01*float64(j))
	}
	next := make([]float64, d)
	var lambda float64
	for range 500 {
		if not != nil {
			orthogonalize(u, not)
		}
		for i := range d {
			var s float64
			for j := range d {
				s += a[i*d+j] * u[j]
			}
			next[i] = s
		}
		if not != nil {
			orthogonalize(next, not)
		}
		var norm float64
		for _, v := range next {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			// No variance left: any unit vector orthogonal to not.
			for j := range u {
				u[j] = 0
			}
			u[len(u)-1] = 1
			if not != nil {
				orthogonalize(u, not)
			}
			return u, 0
		}
		var change float64
		for j := range u {
			change += math.Abs(next[j]/norm - u[j])
			u[j] = next[j] / norm
		}
		lambda = norm
		if change < 1e-12 {
			break
		}
	}
	return u, lambda
}

// orthogonalize removes from u its component along the unit vector e.
func orthogonalize(u, e []float64) {
	var p float64
	for j := range u {
		p += u[j] * e[j]
	}
	for j := range u {
		u[j] -= p * e[j]
	}
}
