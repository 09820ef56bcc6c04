#!/usr/bin/env bash
# Learning from a stream, in one run: nsvm's partial_fit against
# scikit-learn's SGDClassifier and Nystroem + SGDClassifier partial_fit on the
# same chunks (generated Ringnorm, 200 000 rows in 100 chunks; MNIST, 60 000
# images in 30 chunks), and nsvm train --continue. Builds the command and the
# Python package (into a temporary venv that sees Debian's scikit-learn),
# generates Ringnorm and fetches MNIST (nsvm data) into a temporary directory
# unless --data DIR names one that holds them, then runs stream.py with the
# arguments given (--only ringnorm|mnist|continue, --json FILE).
source "$(dirname "$0")/../lib.sh"
/usr/bin/python3 -m venv --system-site-packages "$tools/venv"
"$tools/venv/bin/python" -m pip install -q --no-build-isolation ./python
"$tools/venv/bin/python" bench/incremental/stream.py --nsvm "$tools/nsvm" --data "$tools/data" "$@"
