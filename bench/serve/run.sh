#!/usr/bin/env bash
# Load test of nsvm serve against its PyTorch peers (see loadtest.py):
#   bench/serve/run.sh [--duration 10] [--soak 600] [--only ring|mnist] [--skip-peers]
# Installs the load generator vegeta (as a tool, into a temporary GOBIN),
# builds nsvm, and writes bench/serve/results.md (and soak.csv, soak.png).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
tools=$(mktemp -d)
GOBIN="$tools" go install github.com/tsenart/vegeta/v12@v12.12.0
go build -o "$tools/nsvm" ./cmd/nsvm
exec /usr/bin/python3 bench/serve/loadtest.py --nsvm "$tools/nsvm" --vegeta "$tools/vegeta" "$@"
