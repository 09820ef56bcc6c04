#!/usr/bin/env bash
# Novelty detection: nsvm's one-class SVM, svm-train -s 2 (plain and on
# whitened inputs) and NSVMs for one class (bench/oneclass/ocnsvm), by the
# ROC AUC of their decision values; see bench/oneclass/README.md. Data go to
# $NSVM_BENCH_DIR (default /tmp/nsvm-bench); flags go to oneclass.py
# (--sets, --seeds, --nu, --nets, --extra).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH" PYTHONDONTWRITEBYTECODE=1
command -v svm-train >/dev/null || { echo "run.sh: svm-train not found (Debian: apt-get install libsvm-tools)" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/nsvm" ./cmd/nsvm
go build -o "$bin/ocnsvm" ./bench/oneclass/ocnsvm
/usr/bin/python3 bench/oneclass/oneclass.py --nsvm "$bin/nsvm" --ocnsvm "$bin/ocnsvm" "$@"
