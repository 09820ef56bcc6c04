package svm

import "github.com/nsvm-go/nsvm/data"

// DecisionCSR sets dst[i] to the decision value of sparse row i of x.
func (m *Model) DecisionCSR(dst []float64, x *data.CSR) {
	ev := m.eval()
	k := ev.k
	for i := range x.Rows() {
		v := x.Row(i)
		if ev.w != nil {
			dst[i] = v.Dot64(ev.w) + m.Bias
			continue
		}
		s := m.Bias
		buf := make([]float32, m.D)
		v.Scatter(buf)
		for j := 0; j < m.NSV; j++ {
			s += m.Coef[j] * k.Eval(m.SV[j*m.D:(j+1)*m.D], buf)
		}
		dst[i] = s
	}
}
