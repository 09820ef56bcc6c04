package onnx

import (
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/nn"
)

// features writes the model's network on the scaled rows x ([N, InSize])
// and returns its outputs, [N, OutSize] in PyTorch's NCHW order; without a
// network, x itself. Inference mode: dropout is the identity, a batchnorm
// applies its running statistics as nsvm does (y = s·x + t per channel,
// with s = γ/√(σ² + ε) and t = β − μ·s computed in float32).
func (b *builder) features(x string) (string, error) {
	net := b.m.Net
	if net == nil {
		return x, nil
	}
	g := b.g
	params := map[string]*nn.Param{}
	for _, p := range net.Params() {
		params[p.Name] = p
	}
	param := func(i int, name string) (*nn.Param, error) {
		p, ok := params[fmt.Sprintf("%d.%s", i, name)]
		if !ok {
			return nil, fmt.Errorf("nsvm: the network has no parameter %d.%s", i, name)
		}
		return p, nil
	}
	weights := func(i int, name string) (string, error) {
		p, err := param(i, name)
		if err != nil {
			return "", err
		}
		dims := make([]int64, len(p.Shape))
		for k, v := range p.Shape {
			dims[k] = int64(v)
		}
		b.size += 4 * int64(len(p.W))
		return g.f32(fmt.Sprintf("net.%d.%s", i, name), dims, p.Torch()), nil
	}
	cur := x
	shape := net.InShape()
	image := len(shape) == 3
	c, h, w := shape[0], 1, 1
	if image {
		h, w = shape[1], shape[2]
		cur = g.add("Reshape", "image", []string{x, g.axes("shape", -1, int64(c), int64(h), int64(w))})
	}
	flatten := func() {
		if image {
			cur = g.add("Flatten", "flat", []string{cur}, aInt("axis", 1))
			image, c, h, w = false, c*h*w, 1, 1
		}
	}
	for i, s := range net.Layers() {
		hint := fmt.Sprintf("net.%d.%s", i, s.Kind)
		switch s.Kind {
		case nn.Dense:
			flatten()
			wt, err := weights(i, "weight")
			if err != nil {
				return "", err
			}
			bias, err := weights(i, "bias")
			if err != nil {
				return "", err
			}
			cur = g.add("Gemm", hint, []string{cur, wt, bias}, aInt("transB", 1))
			c = s.N
		case nn.Conv:
			wt, err := weights(i, "weight")
			if err != nil {
				return "", err
			}
			bias, err := weights(i, "bias")
			if err != nil {
				return "", err
			}
			k := int64(s.K)
			cur = g.add("Conv", hint, []string{cur, wt, bias}, aInts("kernel_shape", k, k))
			c, h, w = s.N, h-s.K+1, w-s.K+1
		case nn.MaxPool:
			k := int64(s.K)
			cur = g.add("MaxPool", hint, []string{cur}, aInts("kernel_shape", k, k), aInts("strides", k, k))
			h, w = h/s.K, w/s.K
		case nn.ReLU:
			cur = g.add("Relu", hint, []string{cur})
		case nn.Tanh:
			cur = g.add("Tanh", hint, []string{cur})
		case nn.Sigmoid:
			cur = g.add("Sigmoid", hint, []string{cur})
		case nn.Dropout, nn.Dropout2D:
			// The identity in inference.
		case nn.Flatten:
			flatten()
		case nn.MeanPool:
			cur = g.add("GlobalAveragePool", hint, []string{cur})
			cur = g.add("Flatten", hint+".flat", []string{cur}, aInt("axis", 1))
			image, h, w = false, 1, 1
		case nn.BatchNorm:
			gamma, err := param(i, "weight")
			if err != nil {
				return "", err
			}
			beta, _ := param(i, "bias")
			mean, _ := param(i, "running_mean")
			vr, _ := param(i, "running_var")
			if beta == nil || mean == nil || vr == nil {
				return "", fmt.Errorf("nsvm: batchnorm %d lacks its parameters", i)
			}
			sc, sh := make([]float32, c), make([]float32, c)
			for ci := range c {
				sc[ci] = gamma.W[ci] / float32(math.Sqrt(float64(vr.W[ci])+1e-5))
				sh[ci] = beta.W[ci] - mean.W[ci]*sc[ci]
			}
			dims := []int64{int64(c)}
			if image {
				dims = []int64{int64(c), 1, 1}
			}
			b.size += 8 * int64(c)
			cur = g.add("Mul", hint+".scale", []string{cur, g.f32(hint+".s", dims, sc)})
			cur = g.add("Add", hint, []string{cur, g.f32(hint+".t", dims, sh)})
		case nn.L2Norm:
			flatten()
			nrm := g.add("ReduceL2", hint+".norm", []string{cur}, aInts("axes", 1), aInt("keepdims", 1))
			den := g.add("Max", hint+".den", []string{nrm, g.scalar(hint+".eps", float32(s.P))})
			cur = g.add("Div", hint, []string{cur, den})
		case nn.Scale:
			cur = g.add("Mul", hint, []string{cur, g.scalar(hint+".c", float32(s.P))})
		default:
			return "", notExportable("its network has a %s layer, which the ONNX export does not know", s.Kind)
		}
	}
	flatten()
	return cur, nil
}
