#!/usr/bin/env bash
# Imbalanced binary data: nsvm's defaults against scikit-learn's SVC,
# LogisticRegression and HistGradientBoosting with class_weight='balanced';
# see bench/imbalanced/README.md. Data go to $NSVM_BENCH_DIR (default
# /tmp/nsvm-bench); flags go to imbalanced.py (--sets, --seeds, --timeout).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH" PYTHONDONTWRITEBYTECODE=1
bin=$(mktemp -d)
go build -o "$bin/nsvm" ./cmd/nsvm
/usr/bin/python3 bench/imbalanced/imbalanced.py --nsvm "$bin/nsvm" "$@"
rm -rf "$bin"
