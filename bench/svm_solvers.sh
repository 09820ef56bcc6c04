#!/usr/bin/env bash
# The solvers of package svm against their reference tools, via
# bench/cmd/svmbench (see bench/README-svm.md and bench/README-svr.md):
#
#   grid    GridSMO / GridSMOSVR against independent SMO fits and
#           scikit-learn's GridSearchCV (bench/svm_grid.py) on sklearn's
#           digits, breast_cancer and diabetes data       (~3 min, 3 reps)
#   svr     SMOSVR against svm-train -s 3 on diabetes and Friedman #1
#                                                         (~1 min, 3 reps)
#   linear  LinearDCD against liblinear-train -s 1 / -s 3 on 10⁶ × 20
#           Ringnorm                                      (~7 min; liblinear
#           takes most of it; LINEAR_N=100000 for a quick run)
#
#   bash bench/svm_solvers.sh                 # all three
#   bash bench/svm_solvers.sh grid svr        # some
#   REPS=1 bash bench/svm_solvers.sh grid     # one repetition
#
# Needs Go, libsvm-tools and liblinear-tools, and /usr/bin/python3 with
# python3-sklearn for the scikit-learn rows (each missing piece becomes a
# note in its table).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
modes=("$@")
[ ${#modes[@]} -eq 0 ] && modes=(grid svr linear)
go build -o "${TMPDIR:-/tmp}/svmbench.$$" ./bench/cmd/svmbench
trap 'rm -f "${TMPDIR:-/tmp}/svmbench.$$"' EXIT
for m in "${modes[@]}"; do
  case "$m" in
    grid|svr) "${TMPDIR:-/tmp}/svmbench.$$" -mode "$m" -reps "${REPS:-3}" -jsonl ;;
    linear) "${TMPDIR:-/tmp}/svmbench.$$" -mode linear -reps "${REPS:-1}" -linear-n "${LINEAR_N:-1000000}" -jsonl ;;
    *) echo "svm_solvers.sh: unknown mode $m (want grid, svr, linear)" >&2; exit 2 ;;
  esac
  echo
done
