package plane

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/search"
)

// ring returns n points: class 1 inside a disc at the centre, class 2 on a
// ring around it, as LIBSVM text.
func ring(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := range n {
		label, r := 1, 0.15*rng.Float64()
		if i%2 == 1 {
			label, r = 2, 0.3+0.12*rng.Float64()
		}
		a := 2 * math.Pi * rng.Float64()
		fmt.Fprintf(&b, "%d 1:%.4f 2:%.4f\n", label, 0.5+r*math.Cos(a), 0.5+r*math.Sin(a))
	}
	return b.String()
}

func TestTrainPaint(t *testing.T) {
	var reports []string
	r, err := Train(context.Background(), ring(200), strings.Fields("--algo smo --C 10 --gamma 10"),
		func(p search.FitProgress) { reports = append(reports, Status(p)) })
	if err != nil {
		t.Fatal(err)
	}
	if r.Scores.Accuracy < 0.97 {
		t.Errorf("training accuracy %.3f", r.Scores.Accuracy)
	}
	if !strings.HasPrefix(string(r.File[8:]), "{") || len(reports) == 0 {
		t.Errorf("model file %q…, reports %q", r.File[:16], reports)
	}
	nsv := 0
	for _, sv := range r.SupportVector {
		if sv {
			nsv++
		}
	}
	if nsv != r.M.NumSV() {
		t.Errorf("%d rows marked as support vectors, the model has %d", nsv, r.M.NumSV())
	}
	pic, err := r.Paint(40, 40)
	if err != nil {
		t.Fatal(err)
	}
	centre, corner := pic.Label[20*40+20], pic.Label[0]
	if centre != 1 || corner != 2 {
		t.Errorf("centre %g, corner %g", centre, corner)
	}
	if got := r.Predict(0.5, 0.5); got != 1 {
		t.Errorf("Predict(0.5, 0.5) = %g", got)
	}
	for k, m := range pic.Margin {
		if !(m >= 0) {
			t.Fatalf("margin %g at pixel %d", m, k)
		}
	}
	if _, _, err := r.Curve(10); err == nil {
		t.Error("a classifier drew a curve")
	}
	if _, err := r.Features([]float32{0, 0, 1, 1}, 5, 5); err == nil {
		t.Error("an SVM without a network has a feature map")
	}
}

func TestTrainThreeClassesAndFeatures(t *testing.T) {
	text := ring(200)
	// A third class in the top right corner.
	text += "3 1:0.9 2:0.9\n3 1:0.95 2:0.85\n3 1:0.85 2:0.95\n3 1:0.92 2:0.92\n3 1:0.88 2:0.88\n3 1:0.97 2:0.97\n"
	r, err := Train(context.Background(), text, strings.Fields("--algo nsvm4 --steps 300"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.M.Labels()) != 3 || r.M.Scheme != model.OneVsOne {
		t.Fatalf("labels %v, scheme %q", r.M.Labels(), r.M.Scheme)
	}
	pic, err := r.Paint(20, 20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[float64]bool{}
	for _, l := range pic.Label {
		seen[l] = true
	}
	if len(seen) < 2 {
		t.Errorf("one class painted: %v", seen)
	}
	fm, err := r.Features(r.Data.X, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(fm.Points) != 2*r.Data.N || len(fm.Lines) != 2*2*5*7 || len(fm.LineLabel) != 2*5*7 {
		t.Fatalf("sizes %d, %d, %d", len(fm.Points), len(fm.Lines), len(fm.LineLabel))
	}
	for _, v := range append(fm.Points, fm.Lines...) {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("projected value %g outside [0, 1]", v)
		}
	}
	if !(fm.Explained > 0 && fm.Explained <= 1+1e-9) {
		t.Errorf("explained %g", fm.Explained)
	}
}

func TestTrainRegression(t *testing.T) {
	var b strings.Builder
	for i := range 60 {
		x := float64(i) / 59
		fmt.Fprintf(&b, "%.4f 1:%.4f\n", 0.5+0.3*math.Sin(6*x), x)
	}
	r, err := Train(context.Background(), b.String(), strings.Fields("--task regression --algo smo --C 10 --gamma 20 --epsilon 0.05"), nil)
	if err != nil {
		t.Fatal(err)
	}
	y, eps, err := r.Curve(50)
	if err != nil {
		t.Fatal(err)
	}
	if eps != 0.05 {
		t.Errorf("ε %g, want 0.05", eps)
	}
	for i, v := range y {
		x := (float64(i) + 0.5) / 50
		if want := 0.5 + 0.3*math.Sin(6*x); math.Abs(v-want) > 0.1 {
			t.Errorf("f(%.2f) = %.3f, want %.3f", x, v, want)
		}
	}
	if _, err := r.Paint(4, 4); err == nil {
		t.Error("a regressor painted a picture")
	}
}

func TestTrainErrors(t *testing.T) {
	if _, err := Train(context.Background(), ring(20), []string{"--C", "0"}, nil); !errors.Is(err, search.ErrBadConfig) {
		t.Errorf("--C 0: %v", err)
	}
	if _, err := Train(context.Background(), "1 1:0.5 2:0.5\n", nil, nil); err == nil {
		t.Error("one point trained")
	}
}

func TestTopEigen(t *testing.T) {
	// diag(3, 1, 2): eigenvectors e0 then e2.
	a := []float64{3, 0, 0, 0, 1, 0, 0, 0, 2}
	u, l := topEigen(a, 3, nil)
	if math.Abs(l-3) > 1e-9 || math.Abs(math.Abs(u[0])-1) > 1e-9 {
		t.Errorf("first: %v, %g", u, l)
	}
	v, l2 := topEigen(a, 3, u)
	if math.Abs(l2-2) > 1e-9 || math.Abs(math.Abs(v[2])-1) > 1e-9 {
		t.Errorf("second: %v, %g", v, l2)
	}
}

func TestFields(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  --algo smo\t--C 10 ", []string{"--algo", "smo", "--C", "10"}},
		{`--arch "dense(8), relu" --x ''`, []string{"--arch", "dense(8), relu", "--x", ""}},
		{`--a 'b"c'd`, []string{"--a", `b"cd`}},
	} {
		got, err := Fields(tc.in)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) || len(got) != len(tc.want) {
			t.Errorf("Fields(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := Fields(`--arch "dense(8)`); err == nil {
		t.Error("an open quote passed")
	}
}
