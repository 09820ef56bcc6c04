#!/usr/bin/env bash
# Runs the suite: nsvm's defaults against scikit-learn's SVC, GridSearchCV and
# MLP on the same seeded splits. Flags go to suite.py (--quick, --seeds N,
# --only a,b, --nsvm PATH, --timeout S); see bench/suite/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
bin=""
for a in "$@"; do [ "${prev:-}" = "--nsvm" ] && bin=$a; prev=$a; done
if [ -z "$bin" ]; then
  bin=$(mktemp -d)/nsvm
  go build -o "$bin" ./cmd/nsvm
  set -- --nsvm "$bin" "$@"
fi
exec /usr/bin/python3 bench/suite/suite.py "$@"
