// Package plane is what the svm-toy page computes, in WebAssembly, apart
// from drawing: a model trained on points of the unit square, and what it
// says about the square.
//
// Train reads the points as LIBSVM text ("label 1:x 2:y" a line; for
// regression "y 1:x"), parses the options with nsvm train's own flags
// (search.ParseArgs) and fits with search.Fit, so that the model
// file is the one nsvm train writes for a file of the same lines and the
// same flags. A View then paints the plane (the predicted class and a
// margin at every pixel), the regression curve, and, for an NSVM, the
// points as the network maps them (Features).
//
// Coordinates: x runs to the right and y upward, both in [0, 1]; pixel
// (i, j) of a w×h picture, j counted from the top as on a canvas, is the
// point ((i+½)/w, 1−(j+½)/h).
package plane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/search"
	"github.com/nsvm-go/nsvm/svm"
)

// PointsName is the name the points' text is read under, as if it were a
// file: nsvm train --data PointsName reads a file of the same bytes into
// the same rows.
const PointsName = "points.libsvm"

// Run is the outcome of Train.
type Run struct {
	View
	// File is the model file, as nsvm train writes it.
	File []byte
	// Data are the training rows.
	Data *data.Dataset
	// Seconds is the time search.Fit took.
	Seconds float64
	// Scores are the model's scores on its training rows.
	Scores model.Scores
	// SupportVector[i] reports whether row i of Data is a support vector
	// of a head.
	SupportVector []bool
}

// Train fits a model on the points (LIBSVM text) with the options (nsvm
// train's training flags), reporting progress to progress (which may be
// nil). The error of a fit that ended at chance level comes with no Run,
// as nsvm train writes no model then.
func Train(ctx context.Context, points string, args []string, progress func(search.FitProgress)) (*Run, error) {
	cfg, err := search.ParseArgs(args)
	if err != nil {
		var ce *search.ConfigError
		if errors.As(err, &ce) {
			return nil, flagError{ce}
		}
		return nil, err
	}
	ds, err := data.OpenReader(strings.NewReader(points), PointsName, data.OpenOptions{Format: "libsvm"})
	if err != nil {
		return nil, err
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	cfg.Progress = progress
	start := time.Now()
	m, err := search.Fit(ctx, ds, cfg)
	secs := time.Since(start).Seconds()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		return nil, err
	}
	r := &Run{View: View{M: m}, File: buf.Bytes(), Data: ds, Seconds: secs}
	if r.Scores, err = m.Evaluate(ds); err != nil {
		return nil, err
	}
	r.SupportVector = supportVectors(m, ds)
	return r, nil
}

// supportVectors reports which rows of ds are support vectors of m's
// heads: those whose features equal a head's support vector (within
// float32 rounding, as the trainers compute features in batches).
func supportVectors(m *model.Model, ds *data.Dataset) []bool {
	out := make([]bool, ds.N)
	if ds.X == nil {
		return out
	}
	d := m.OutSize()
	z := make([]float32, ds.N*d)
	m.Features(z, ds.X, ds.N)
	heads := m.Heads
	if heads == nil {
		heads = []*svm.Model{m.Head}
	}
	for _, h := range heads {
		if h.SV == nil || h.D != d {
			continue
		}
		for s := 0; s < h.NSV; s++ {
			sv := h.SV[s*d : (s+1)*d]
			for i := range out {
				if out[i] {
					continue
				}
				var dist, norm float64
				for j, v := range z[i*d : (i+1)*d] {
					e := float64(v) - float64(sv[j])
					dist += e * e
					norm += float64(v) * float64(v)
				}
				if dist <= 1e-8*(1+norm) {
					out[i] = true
				}
			}
		}
	}
	return out
}

// View answers questions about the plane from a model on two inputs (a
// classifier) or one (a regressor).
type View struct{ M *model.Model }

// Predict returns the label the model predicts at (x, y); a regressor's
// value at x.
func (v View) Predict(x, y float64) float64 {
	if v.M.InSize() == 1 {
		return v.M.Predict([]float32{float32(x)})
	}
	return v.M.Predict([]float32{float32(x), float32(y)})
}

// Picture is the plane painted by a classifier, pixel by pixel, row-major
// from the top left.
type Picture struct {
	W, H int
	// Label is the predicted class label at each pixel.
	Label []float64
	// Margin is how far inside its class's region the pixel is, in units
	// of the SVM's margin: |g| for a binary model (the margin's edges are
	// at 1), for many classes the least margin of the heads that voted
	// for the class (one-vs-one) or its head's decision (one-vs-rest).
	Margin []float32
}

// Paint paints a w×h picture of the plane. A regressor has no picture
// (see Curve).
func (v View) Paint(w, h int) (*Picture, error) {
	m := v.M
	if m.Regression() || m.InSize() != 2 {
		return nil, fmt.Errorf("plane: a picture needs a classifier on two inputs")
	}
	n := w * h
	x := make([]float32, 2*n)
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			k := j*w + i
			x[2*k] = float32((float64(i) + 0.5) / float64(w))
			x[2*k+1] = float32(1 - (float64(j)+0.5)/float64(h))
		}
	}
	p := m.Predictions(x, n, false)
	pic := &Picture{W: w, H: h, Label: p.Labels, Margin: make([]float32, n)}
	nh := m.NumHeads()
	labels := m.Labels()
	for k := range n {
		dec := p.Decisions[k*nh : (k+1)*nh]
		if nh == 1 {
			pic.Margin[k] = float32(math.Abs(dec[0]))
			continue
		}
		c := 0
		for c < len(labels)-1 && labels[c] != p.Labels[k] {
			c++
		}
		if m.Scheme != model.OneVsOne {
			pic.Margin[k] = float32(dec[c])
			continue
		}
		least := math.Inf(1)
		for q, g := range dec {
			a, b := svm.PairClasses(q, len(labels))
			switch {
			case a == c && g >= 0:
				least = min(least, g)
			case b == c && g < 0:
				least = min(least, -g)
			}
		}
		pic.Margin[k] = float32(least)
	}
	return pic, nil
}

// Curve returns a regressor's values at x = (i+½)/w, i < w, and its ε
// (0 when the model does not record one).
func (v View) Curve(w int) ([]float64, float64, error) {
	m := v.M
	if !m.Regression() || m.InSize() != 1 {
		return nil, 0, fmt.Errorf("plane: a curve needs a regressor on one input")
	}
	x := make([]float32, w)
	for i := range x {
		x[i] = float32((float64(i) + 0.5) / float64(w))
	}
	y := make([]float64, w)
	m.PredictBatch(y, x, w)
	var eps float64
	fmt.Sscan(m.Info["epsilon"], &eps)
	return y, eps, nil
}

// flagError is a refused configuration in the words of the options box:
// the flags it names spelled as typed (--C), wrapping the *ConfigError.
type flagError struct{ ce *search.ConfigError }

func (e flagError) Error() string { return "nsvm: " + e.ce.Text(search.FlagOf) }
func (e flagError) Unwrap() error { return e.ce }
