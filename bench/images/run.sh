#!/usr/bin/env bash
# Images: nsvm's defaults against a PyTorch CNN trained the usual way on
# MNIST and Fashion-MNIST, and the nn engine's share of the CPU's peak on a
# CNN training step; see bench/images/README.md. Data go to $NSVM_BENCH_DIR
# (default /tmp/nsvm-bench); flags go to images.py (--sets, --epochs, --hgb,
# --timeout, --skip-engine, --limit).
source "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
/usr/bin/python3 bench/images/images.py --nsvm "$tools/nsvm" "$@"
