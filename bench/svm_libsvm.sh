#!/usr/bin/env bash
# SMO (package svm) against LIBSVM's svm-train on the same data, kernel, C, γ,
# ε, cache size (-m) and shrinking: generated Ringnorm (6660 train / 740 test,
# standardised) and MNIST 0 vs 1 (pixels/255) from the IDX files in
# $NSVM_MNIST_DIR (default /work/mnist; skipped when missing). Prints a table
# (time, CPU time, dual objective, #SV, test accuracy, ratio ours/svm-train)
# followed by one JSON line per data set, plus kernel Pegasos accuracy on
# Ringnorm at 10⁴ and 10⁵ steps.
#
#   bash bench/svm_libsvm.sh [svmbench flags, e.g. -reps 5 -m 100 -gamma 0.05 -C 1]
#   BENCH_QUICK=1 bash bench/svm_libsvm.sh     # one repetition, no Pegasos
#
# Needs Go and libsvm-tools (apt-get install libsvm-tools); without svm-train
# only our side is run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

if ! command -v svm-train >/dev/null 2>&1; then
  echo "svm_libsvm.sh: svm-train not found (apt-get install libsvm-tools); running our side only" >&2
fi

reps=3
pegasos=-pegasos
if [ "${BENCH_QUICK:-0}" = 1 ]; then
  reps=1
  pegasos=
fi

go run ./bench/cmd/svmbench -reps "$reps" $pegasos -mnist "${NSVM_MNIST_DIR:-/work/mnist}" -jsonl "$@"
