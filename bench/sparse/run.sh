#!/usr/bin/env bash
# Sparse, high-dimensional text: nsvm's defaults against liblinear-train and
# scikit-learn's LinearSVC on Debian package descriptions and generated Zipfian
# bags of words; see bench/sparse/README.md. Data go to $NSVM_BENCH_DIR
# (default /tmp/nsvm-bench); flags go to sparse.py (--sets, --cs, --repeat,
# --nsvm-before, --no-sklearn, --timeout).
source "$(dirname "$0")/../lib.sh"
go build -o "$tools/zipfgen" ./bench/cmd/zipfgen
/usr/bin/python3 bench/sparse/sparse.py --nsvm "$tools/nsvm" --zipfgen "$tools/zipfgen" "$@"
