#!/usr/bin/env bash
# Sparse, high-dimensional text: nsvm's defaults against liblinear-train and
# scikit-learn's LinearSVC on Debian package descriptions and generated Zipfian
# bags of words; see bench/sparse/README.md. Data go to $NSVM_BENCH_DIR
# (default /tmp/nsvm-bench); flags go to sparse.py (--sets, --cs, --repeat,
# --nsvm-before, --no-sklearn, --timeout).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
bin=$(mktemp -d)
go build -o "$bin/nsvm" ./cmd/nsvm
go build -o "$bin/zipfgen" ./bench/cmd/zipfgen
/usr/bin/python3 bench/sparse/sparse.py --nsvm "$bin/nsvm" --zipfgen "$bin/zipfgen" "$@"
rm -rf "$bin"
