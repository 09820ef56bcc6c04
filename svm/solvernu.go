package svm

import "math"

// The ν formulations (LIBSVM's Solver_NU; Chang & Lin 2011, §4.2) add a
// second equality constraint to the problem of smoSolver:
//
//	min_α  ½·αᵀQα + pᵀα   s.t.  0 ≤ α_i ≤ C_i,  yᵀα = Δ₁,  eᵀα = Δ₂.
//
// A pair update that keeps both sums must move two variables of the same
// sign, so the working set is chosen within one sign: the best pair among
// the variables with y = +1 and the best among those with y = −1 (each by
// the second-order rule of selectWorkingSet), the better of the two taken.
// The stopping rule and shrinking look at each sign separately, and the
// multipliers of the two constraints give two thresholds, r₁ over y = +1
// and r₂ over y = −1, from which ρ = (r₁ − r₂)/2 and r = (r₁ + r₂)/2. The
// pair update itself is smoSolver.update's. Everything here runs on the
// active set, as the methods of smoSolver it replaces when smoSolver.nu is
// set.

// selectWorkingSetNu returns the pair of LIBSVM's Solver_NU and the larger
// of the two violations, m⁺ − M⁺ over y = +1 and m⁻ − M⁻ over y = −1;
// j < 0 when both are below ε.
func (s *smoSolver) selectWorkingSetNu() (int, int, float64) {
	as := s.activeSize
	gmaxp, gmaxp2 := math.Inf(-1), math.Inf(-1)
	gmaxn, gmaxn2 := math.Inf(-1), math.Inf(-1)
	ip, in := -1, -1
	y, g, set := s.y[:as], s.g[:as], s.set[:as]
	g, set = g[:len(y)], set[:len(y)]
	for t, yt := range y {
		if set[t]&inUp == 0 {
			continue
		}
		if yt > 0 {
			if -g[t] >= gmaxp {
				gmaxp, ip = -g[t], t
			}
		} else if g[t] >= gmaxn {
			gmaxn, in = g[t], t
		}
	}
	var qip, qin []float32
	if ip >= 0 {
		qip = s.getQ(ip, as)
	}
	if in >= 0 {
		qin = s.getQ(in, as)
	}
	jmin := -1
	objDiffMin := math.Inf(1)
	qd := s.qd[:as]
	for t, yt := range y {
		if set[t]&inLow == 0 {
			continue
		}
		var gd, quad float64
		if yt > 0 {
			gmaxp2 = max(gmaxp2, g[t])
			if gd = gmaxp + g[t]; gd <= 0 {
				continue
			}
			quad = s.qd[ip] + qd[t] - 2*float64(qip[t])
		} else {
			gmaxn2 = max(gmaxn2, -g[t])
			if gd = gmaxn - g[t]; gd <= 0 {
				continue
			}
			quad = s.qd[in] + qd[t] - 2*float64(qin[t])
		}
		if quad <= 0 {
			quad = tau
		}
		if od := -gd * gd / quad; od <= objDiffMin {
			jmin, objDiffMin = t, od
		}
	}
	gap := max(gmaxp+gmaxp2, gmaxn+gmaxn2)
	if gap < s.eps || jmin < 0 {
		return -1, -1, gap
	}
	if y[jmin] > 0 {
		return ip, jmin, gap
	}
	return in, jmin, gap
}

// beShrunkNu is LIBSVM's Solver_NU::be_shrunk: a bounded variable whose
// gradient lies beyond the extreme violation of its own sign.
func (s *smoSolver) beShrunkNu(i int, gmax1, gmax2, gmax3, gmax4 float64) bool {
	switch s.status[i] {
	case atUpper:
		if s.y[i] > 0 {
			return -s.g[i] > gmax1
		}
		return -s.g[i] > gmax4
	case atLower:
		if s.y[i] > 0 {
			return s.g[i] > gmax2
		}
		return s.g[i] > gmax3
	}
	return false
}

// doShrinkingNu is doShrinking with the violations taken per sign: gmax1
// and gmax2 are the largest −y_i∇f_i over I_up and y_i∇f_i over I_low
// among y = +1, gmax3 and gmax4 those among y = −1 (in LIBSVM's naming:
// gmax3 = max ∇f_i over y = −1 not at the lower bound, gmax4 = max −∇f_i
// over y = −1 not at the upper bound).
func (s *smoSolver) doShrinkingNu() {
	gmax1, gmax2 := math.Inf(-1), math.Inf(-1)
	gmax3, gmax4 := math.Inf(-1), math.Inf(-1)
	for i := 0; i < s.activeSize; i++ {
		g := s.g[i]
		if s.status[i] != atUpper {
			if s.y[i] > 0 {
				gmax1 = max(gmax1, -g)
			} else {
				gmax4 = max(gmax4, -g)
			}
		}
		if s.status[i] != atLower {
			if s.y[i] > 0 {
				gmax2 = max(gmax2, g)
			} else {
				gmax3 = max(gmax3, g)
			}
		}
	}
	if !s.unshrink && max(gmax1+gmax2, gmax3+gmax4) <= s.eps*10 {
		s.unshrink = true
		s.reconstructGradient()
		s.activeSize = s.l
	}
	for i := 0; i < s.activeSize; i++ {
		if s.beShrunkNu(i, gmax1, gmax2, gmax3, gmax4) {
			s.activeSize--
			for s.activeSize > i {
				if !s.beShrunkNu(s.activeSize, gmax1, gmax2, gmax3, gmax4) {
					s.swapIndex(i, s.activeSize)
					break
				}
				s.activeSize--
			}
		}
	}
}

// calculateRhoNu returns ρ = (r₁ − r₂)/2 and r = (r₁ + r₂)/2, where r₁ is
// the mean of ∇f_i over the free variables with y = +1 (the middle of the
// feasible interval if there are none) and r₂ the same over y = −1
// (LIBSVM's Solver_NU::calculate_rho).
func (s *smoSolver) calculateRhoNu() (rho, r float64) {
	var ub, lb, sum [2]float64
	var nFree [2]int
	ub[0], ub[1] = math.Inf(1), math.Inf(1)
	lb[0], lb[1] = math.Inf(-1), math.Inf(-1)
	for i := 0; i < s.activeSize; i++ {
		c := 0
		if s.y[i] < 0 {
			c = 1
		}
		g := s.g[i]
		switch s.status[i] {
		case atUpper:
			lb[c] = max(lb[c], g)
		case atLower:
			ub[c] = min(ub[c], g)
		default:
			nFree[c]++
			sum[c] += g
		}
	}
	var rr [2]float64
	for c := range rr {
		if nFree[c] > 0 {
			rr[c] = sum[c] / float64(nFree[c])
		} else {
			rr[c] = (ub[c] + lb[c]) / 2
		}
	}
	return (rr[0] - rr[1]) / 2, (rr[0] + rr[1]) / 2
}
