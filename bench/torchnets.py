"""The layers nsvm has and PyTorch lacks, and the paper's two networks, as
torch modules: what the PyTorch peers (engine_torch.py, torch_nsvm.py) and
the fixture writer of package nn (nn/testdata/make_fixtures.py) share."""
import torch.nn as nn
import torch.nn.functional as F


class L2Norm(nn.Module):
    """nsvm's l2norm(eps): x / max(‖x‖, eps) over each row."""

    def __init__(self, eps=1e-12):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return F.normalize(x, p=2.0, dim=1, eps=self.eps)


class Scale(nn.Module):
    """nsvm's scale(c): c·x."""

    def __init__(self, c):
        super().__init__()
        self.c = c

    def forward(self, x):
        return x * self.c


def ringnorm_mlp():
    # RingnormArch: dense(40),relu,dense(30),relu,dense(20),relu,dense(20),relu,l2norm
    return nn.Sequential(
        nn.Linear(20, 40), nn.ReLU(), nn.Linear(40, 30), nn.ReLU(),
        nn.Linear(30, 20), nn.ReLU(), nn.Linear(20, 20), nn.ReLU(), L2Norm())


def mnist_cnn(dropout=0.5):
    # MNISTArch: conv(10,5),maxpool(2),relu,conv(20,5),dropout2d(0.5),maxpool(2),
    # relu,flatten,l2norm,scale(1.41421356); dropout sets the dropout2d rate.
    return nn.Sequential(
        nn.Conv2d(1, 10, 5), nn.MaxPool2d(2), nn.ReLU(), nn.Conv2d(10, 20, 5),
        nn.Dropout2d(dropout), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(), L2Norm(),
        Scale(1.41421356))
