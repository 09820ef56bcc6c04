#!/usr/bin/env bash
# nsvm through its Python package against nsvm train and nsvm predict on the
# same data, scikit-learn's SVC and GridSearchCV(SVC), in one run: builds the
# command, the Go latency command and the package (into a temporary venv that
# sees Debian's scikit-learn and pandas), then runs bench.py with the
# arguments given (--n, --test, --repeats, --skip-grid, --json FILE).
source "$(dirname "$0")/../lib.sh"
go build -o "$tools/latency" ./bench/python/latency
/usr/bin/python3 -m venv --system-site-packages "$tools/venv"
"$tools/venv/bin/python" -m pip install -q --no-build-isolation ./python
"$tools/venv/bin/python" bench/python/bench.py --nsvm "$tools/nsvm" --latency "$tools/latency" "$@"
