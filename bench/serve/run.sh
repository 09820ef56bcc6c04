#!/usr/bin/env bash
# Load test of nsvm serve against its PyTorch peers (see loadtest.py):
#   bench/serve/run.sh [--duration 10] [--soak 600] [--only ring|mnist] [--skip-peers]
# Installs the load generator vegeta (as a tool, into a temporary GOBIN),
# builds nsvm, and writes bench/serve/results.md (and soak.csv, soak.png).
source "$(dirname "$0")/../lib.sh"
GOBIN="$tools" go install github.com/tsenart/vegeta/v12@v12.12.0
/usr/bin/python3 bench/serve/loadtest.py --nsvm "$tools/nsvm" --vegeta "$tools/vegeta" "$@"
