package nn

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The paper's networks (§5). The input shapes are []int{20} for Ringnorm and
// []int{1, 28, 28} for MNIST.
const (
	// RingnormArch is the Ringnorm feature map of Algorithms 1/2: an MLP
	// 20-40-30-20-20 with ReLU after every layer and L2-normalised output.
	RingnormArch = "dense(40),relu,dense(30),relu,dense(20),relu,dense(20),relu,l2norm"
	// RingnormArchNoNorm is RingnormArch without the normalisation
	// (Algorithms 3/4).
	RingnormArchNoNorm = "dense(40),relu,dense(30),relu,dense(20),relu,dense(20),relu"
	// MNISTArch is the MNIST feature map of Algorithms 1/2: two 5×5
	// convolutions with max-pooling, channel dropout, 320 outputs scaled to
	// norm √2.
	MNISTArch = "conv(10,5),maxpool(2),relu,conv(20,5),dropout2d(0.5),maxpool(2),relu,flatten,l2norm,scale(1.41421356)"
	// MNISTArchNoNorm is MNISTArch without ",l2norm,scale(...)"
	// (Algorithms 3/4).
	MNISTArchNoNorm = "conv(10,5),maxpool(2),relu,conv(20,5),dropout2d(0.5),maxpool(2),relu,flatten"
	// RingnormCoordArch is a per-coordinate feature map for Ringnorm (not
	// the paper's): each row is seen as a 1×20×1 image, one small network
	// 1-16-16-4 (1×1 convolutions, so the same weights for every
	// coordinate) maps each coordinate to 4 features, and the paper's output
	// layer dense(20),relu combines the 20×4 values. Ringnorm's coordinates
	// are independent and identically distributed given the class, so its
	// Bayes rule is a sum of one function of each coordinate; this network
	// has that form built in and cannot overfit the way the MLP does.
	// Append ",l2norm" for Algorithms 1 and 2.
	RingnormCoordArch = "conv(16,1),relu,conv(16,1),relu,conv(4,1),flatten,dense(20),relu"
)

// Kind names a layer type; its value is the spec keyword.
type Kind string

// Layer kinds.
const (
	Dense     Kind = "dense"     // dense(N): fully connected, N outputs, with bias
	Conv      Kind = "conv"      // conv(C,K): C output channels, K×K kernel, stride 1, no padding, with bias
	MaxPool   Kind = "maxpool"   // maxpool(K): K×K windows, stride K
	ReLU      Kind = "relu"      // max(x, 0)
	Dropout2D Kind = "dropout2d" // dropout2d(P): zero whole channels with probability P
	Dropout   Kind = "dropout"   // dropout(P): zero single elements with probability P
	Flatten   Kind = "flatten"   // C×H×W → C·H·W in PyTorch's (NCHW) order
	L2Norm    Kind = "l2norm"    // l2norm or l2norm(EPS): x / max(‖x‖₂, EPS) per sample
	Scale     Kind = "scale"     // scale(C): C·x
	Tanh      Kind = "tanh"      // tanh(x)
	Sigmoid   Kind = "sigmoid"   // 1 / (1 + e^(−x))
	MeanPool  Kind = "meanpool"  // C×H×W → C: the mean of each channel over all positions
	BatchNorm Kind = "batchnorm" // per-channel batch normalisation, learned γ and β (BatchNorm2d/1d)
)

// DefaultL2Eps is the ε of l2norm without an argument, as in
// torch.nn.functional.normalize.
const DefaultL2Eps = 1e-12

// LayerSpec is one parsed token of an architecture spec.
type LayerSpec struct {
	Kind Kind
	// N is the width of dense(N) and the output channels of conv(N,K).
	N int
	// K is the kernel size of conv(N,K) and the window of maxpool(K).
	K int
	// P is the probability of dropout(P)/dropout2d(P), the ε of l2norm(P)
	// and the factor of scale(P).
	P float64
}

// String returns the canonical token for s; ParseArch(s.String()) gives s
// back.
func (s LayerSpec) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch s.Kind {
	case Dense:
		return fmt.Sprintf("dense(%d)", s.N)
	case Conv:
		return fmt.Sprintf("conv(%d,%d)", s.N, s.K)
	case MaxPool:
		return fmt.Sprintf("maxpool(%d)", s.K)
	case Dropout2D, Dropout, Scale:
		return string(s.Kind) + "(" + f(s.P) + ")"
	case L2Norm:
		if s.P == DefaultL2Eps {
			return "l2norm"
		}
		return "l2norm(" + f(s.P) + ")"
	}
	return string(s.Kind)
}

// maxWidth bounds dense widths, channel counts and kernel sizes.
const maxWidth = 1 << 24

// ParseArch parses an architecture spec: comma-separated tokens (see the
// package documentation). Errors name the offending token, counted from 1.
// ParseArch checks only the syntax; shapes are checked by New.
func ParseArch(spec string) ([]LayerSpec, error) {
	specs, _, err := parseArch(spec)
	return specs, err
}

// parseArch is ParseArch that also returns the tokens as written.
func parseArch(spec string) ([]LayerSpec, []string, error) {
	toks, err := splitTokens(spec)
	if err != nil {
		return nil, nil, err
	}
	out := make([]LayerSpec, len(toks))
	for i, tok := range toks {
		s, err := parseToken(tok)
		if err != nil {
			return nil, nil, fmt.Errorf("nn: arch %q: token %d %q: %w", spec, i+1, tok, err)
		}
		out[i] = s
	}
	return out, toks, nil
}

// splitTokens splits spec at the commas outside parentheses and trims the
// tokens.
func splitTokens(spec string) ([]string, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, fmt.Errorf("nn: arch %q: empty", spec)
	}
	var toks []string
	depth, start := 0, 0
	for i, r := range spec {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				toks = append(toks, strings.TrimSpace(spec[start:i]))
				start = i + 1
			}
		}
	}
	toks = append(toks, strings.TrimSpace(spec[start:]))
	for i, t := range toks {
		if t == "" {
			return nil, fmt.Errorf("nn: arch %q: token %d is empty", spec, i+1)
		}
	}
	return toks, nil
}

func parseToken(tok string) (LayerSpec, error) {
	name, args, hasArgs := tok, []string(nil), false
	if i := strings.IndexByte(tok, '('); i >= 0 {
		if !strings.HasSuffix(tok, ")") {
			return LayerSpec{}, fmt.Errorf("missing closing parenthesis")
		}
		name, hasArgs = strings.TrimSpace(tok[:i]), true
		inner := tok[i+1 : len(tok)-1]
		if strings.ContainsAny(inner, "()") {
			return LayerSpec{}, fmt.Errorf("nested parentheses")
		}
		for _, a := range strings.Split(inner, ",") {
			args = append(args, strings.TrimSpace(a))
		}
	} else if strings.ContainsRune(tok, ')') {
		return LayerSpec{}, fmt.Errorf("unbalanced parenthesis")
	}
	s := LayerSpec{Kind: Kind(strings.ToLower(name))}
	want := func(n int, what string) error {
		if len(args) != n {
			return fmt.Errorf("want %s", what)
		}
		return nil
	}
	var err error
	switch s.Kind {
	case Dense:
		if err = want(1, "dense(N)"); err == nil {
			s.N, err = posInt(args[0], "width")
		}
	case Conv:
		if err = want(2, "conv(C,K)"); err == nil {
			if s.N, err = posInt(args[0], "channel count"); err == nil {
				s.K, err = posInt(args[1], "kernel size")
			}
		}
	case MaxPool:
		if err = want(1, "maxpool(K)"); err == nil {
			s.K, err = posInt(args[0], "pool size")
		}
	case Dropout2D, Dropout:
		if err = want(1, string(s.Kind)+"(P)"); err == nil {
			s.P, err = parseFloat(args[0], "probability")
			if err == nil && !(s.P >= 0 && s.P < 1) {
				err = fmt.Errorf("probability must be in [0, 1)")
			}
		}
	case L2Norm:
		s.P = DefaultL2Eps
		if hasArgs {
			if err = want(1, "l2norm or l2norm(EPS)"); err == nil {
				s.P, err = parseFloat(args[0], "eps")
				if err == nil && !(s.P > 0) {
					err = fmt.Errorf("eps must be positive")
				}
			}
		}
	case Scale:
		if err = want(1, "scale(C)"); err == nil {
			s.P, err = parseFloat(args[0], "factor")
		}
	case ReLU, Flatten, Tanh, Sigmoid, MeanPool, BatchNorm:
		if hasArgs {
			err = fmt.Errorf("%s takes no arguments", s.Kind)
		}
	default:
		err = fmt.Errorf("unknown layer (want dense, conv, maxpool, relu, dropout2d, dropout, flatten, meanpool, batchnorm, l2norm, scale, tanh or sigmoid)")
	}
	return s, err
}

func posInt(a, what string) (int, error) {
	v, err := strconv.Atoi(a)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%s must be a positive integer", what)
	}
	if v > maxWidth {
		return 0, fmt.Errorf("%s %d is too large (max %d)", what, v, maxWidth)
	}
	return v, nil
}

func parseFloat(a, what string) (float64, error) {
	v, err := strconv.ParseFloat(a, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s must be a finite number", what)
	}
	return v, nil
}
