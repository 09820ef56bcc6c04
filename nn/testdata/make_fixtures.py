#!/usr/bin/python3
"""Writes the PyTorch reference values that nn/torch_test.go compares against.

Run from the repository root with Debian's python3-torch (1.13):

    /usr/bin/python3 nn/testdata/make_fixtures.py

It builds the paper's MLP (RingnormArch) and CNN (MNISTArch with the dropout
probability set to 0, so that the run is deterministic) and a small CNN with
batch normalisation on images and on features, feeds a fixed batch,
backpropagates a fixed cotangent c through L = sum(c * out), and takes two
steps of SGD (lr 0.01, momentum 0.9, weight decay 1e-4) and, separately, two
steps of Adam (lr 1e-3, weight decay 1e-4) from the same initial parameters.

Output: torch_fixtures.json (an index: spec, input shape, batch, and for each
tensor its shape and offset in floats) and torch_fixtures.bin (the tensors as
little-endian float32). Tensor names: x, c, out0 (initial outputs), grad0/P
(gradients at the initial parameters), param0/P, out1 and grad1/P (after one
SGD step), sgd2/P (after two SGD steps), adam2/P (after two Adam steps); for networks
with batch normalisation also the running statistics under sgd2/ and adam2/
and eval2 (the inference outputs after two SGD steps).
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from torchnets import mnist_cnn, ringnorm_mlp  # noqa: E402  (the paper's MLP; the CNN with dropout 0)


def bn():
    # A ReLU before each batchnorm: a bias right before one has a zero
    # gradient, which both sides get only to rounding.
    return nn.Sequential(
        nn.Conv2d(1, 6, 3), nn.ReLU(), nn.MaxPool2d(2), nn.BatchNorm2d(6),
        nn.ReLU(), nn.Flatten(), nn.Linear(96, 8), nn.ReLU(), nn.BatchNorm1d(8))


class Writer:
    def __init__(self):
        self.chunks = []
        self.offset = 0

    def add(self, index, name, t):
        a = t.detach().cpu().numpy().astype('<f4')
        index[name] = {"shape": list(a.shape), "offset": self.offset}
        self.chunks.append(a.tobytes())
        self.offset += a.size


def run(w, name, spec, model, x, c):
    has_bn = any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())
    entry = {"spec": spec, "in_shape": list(x.shape[1:]), "batch": x.shape[0], "tensors": {}}
    ts = entry["tensors"]
    w.add(ts, "x", x)
    w.add(ts, "c", c)
    init = {k: v.clone() for k, v in model.state_dict().items()}
    for k, v in init.items():
        w.add(ts, "param0/" + k, v)

    def fwd_bwd(tag_out, tag_grad):
        model.zero_grad()
        out = model(x)
        (out * c).sum().backward()
        w.add(ts, tag_out, out)
        for k, p in model.named_parameters():
            w.add(ts, tag_grad + "/" + k, p.grad)

    def add_state(prefix):
        """The parameters and the batchnorms' running statistics."""
        for k, p in model.named_parameters():
            w.add(ts, prefix + k, p)
        for k, b in model.named_buffers():
            if "running" in k:
                w.add(ts, prefix + k, b)

    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    fwd_bwd("out0", "grad0")
    opt.step()
    fwd_bwd("out1", "grad1")
    opt.step()
    add_state("sgd2/")
    if has_bn:
        model.eval()
        with torch.no_grad():
            w.add(ts, "eval2", model(x))
        model.train()

    model.load_state_dict(init)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    for _ in range(2):
        model.zero_grad()
        (model(x) * c).sum().backward()
        opt.step()
    add_state("adam2/")
    return entry


def main():
    torch.manual_seed(20240601)
    torch.set_num_threads(1)
    here = os.path.dirname(os.path.abspath(__file__))
    w = Writer()
    index = {}

    m = ringnorm_mlp()
    x = torch.randn(8, 20)
    c = torch.randn(8, 20)
    index["mlp"] = run(w, "mlp", "dense(40),relu,dense(30),relu,dense(20),relu,dense(20),relu,l2norm", m, x, c)

    m = mnist_cnn(dropout=0.0)
    x = torch.rand(4, 1, 28, 28)
    # A zero border, as in MNIST, makes max-pool windows with ties.
    x[:, :, :4, :] = 0
    x[:, :, :, -5:] = 0
    c = torch.randn(4, 320)
    index["cnn"] = run(w, "cnn", "conv(10,5),maxpool(2),relu,conv(20,5),dropout2d(0),maxpool(2),relu,flatten,l2norm,scale(1.41421356)", m, x, c)

    m = bn()
    # Inputs large next to the conv biases, so that every channel's ReLU
    # cuts: a channel it never cuts gets a bias gradient of zero (the
    # batchnorm removes the shift), which Adam's steps magnify from noise.
    x = 3 * torch.randn(16, 1, 10, 10)
    c = torch.randn(16, 8)
    index["bn"] = run(w, "bn", "conv(6,3),relu,maxpool(2),batchnorm,relu,flatten,dense(8),relu,batchnorm", m, x, c)

    index["torch_version"] = torch.__version__
    with open(os.path.join(here, "torch_fixtures.bin"), "wb") as f:
        for ch in w.chunks:
            f.write(ch)
    with open(os.path.join(here, "torch_fixtures.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
