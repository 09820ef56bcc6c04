#!/usr/bin/env bash
# Generated Ringnorm at 10⁴…10⁷ rows: nsvm defaults, SMO, scikit-learn
# HistGradientBoosting and Nyström + SGD; see bench/scale/README.md.
# Flags go to scale.py (--sizes, --smo-max, --peers-max, --dir).
source "$(dirname "$0")/../lib.sh"
/usr/bin/python3 bench/scale/scale.py --nsvm "$tools/nsvm" "$@"
