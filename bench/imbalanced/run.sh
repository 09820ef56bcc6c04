#!/usr/bin/env bash
# Imbalanced binary data: nsvm's defaults against scikit-learn's SVC,
# LogisticRegression and HistGradientBoosting with class_weight='balanced';
# see bench/imbalanced/README.md. Data go to $NSVM_BENCH_DIR (default
# /tmp/nsvm-bench); flags go to imbalanced.py (--sets, --seeds, --timeout).
source "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
/usr/bin/python3 bench/imbalanced/imbalanced.py --nsvm "$tools/nsvm" "$@"
