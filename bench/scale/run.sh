#!/usr/bin/env bash
# Generated Ringnorm at 10⁴…10⁷ rows: nsvm defaults, SMO, scikit-learn
# HistGradientBoosting and Nyström + SGD; see bench/scale/README.md.
# Flags go to scale.py (--sizes, --smo-max, --peers-max, --dir).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
bin=$(mktemp -d)/nsvm
go build -o "$bin" ./cmd/nsvm
exec /usr/bin/python3 bench/scale/scale.py --nsvm "$bin" "$@"
