#!/usr/bin/env bash
# Novelty detection: nsvm's one-class SVM, svm-train -s 2 (plain and on
# whitened inputs) and NSVMs for one class (bench/oneclass/ocnsvm), by the
# ROC AUC of their decision values; see bench/oneclass/README.md. Data go to
# $NSVM_BENCH_DIR (default /tmp/nsvm-bench); flags go to oneclass.py
# (--sets, --seeds, --nu, --nets, --extra).
command -v svm-train >/dev/null || { echo "run.sh: svm-train not found (Debian: apt-get install libsvm-tools)" >&2; exit 1; }
source "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
go build -o "$tools/ocnsvm" ./bench/oneclass/ocnsvm
/usr/bin/python3 bench/oneclass/oneclass.py --nsvm "$tools/nsvm" --ocnsvm "$tools/ocnsvm" "$@"
