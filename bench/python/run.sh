#!/usr/bin/env bash
# nsvm through its Python package against nsvm train and nsvm predict on the
# same data, scikit-learn's SVC and GridSearchCV(SVC), in one run: builds the
# command, the Go latency command and the package (into a temporary venv that
# sees Debian's scikit-learn and pandas), then runs bench.py with the
# arguments given (--n, --test, --repeats, --skip-grid, --json FILE).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/nsvm" ./cmd/nsvm
go build -o "$tmp/latency" ./bench/python/latency
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --no-build-isolation ./python
"$tmp/venv/bin/python" bench/python/bench.py --nsvm "$tmp/nsvm" --latency "$tmp/latency" "$@"
