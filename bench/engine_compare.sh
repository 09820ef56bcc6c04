#!/usr/bin/env bash
# Compares the nn engine with PyTorch on the five engine workloads
# (see nn/bench_test.go and bench/engine_torch.py) and prints one table:
# workload, Go ns/op, Go noasm ns/op (pure-Go GEMM), PyTorch ns/op, Go/PyTorch.
#
# Environment:
#   BENCHTIME  go test -benchtime per run (default 2s; PyTorch gets the same
#              number of seconds when it is given in seconds)
#   COUNT      go test -count; the table shows the median (default 3)
#   THREADS    PyTorch threads (default 1)
#   PYTHON     interpreter with torch (default /usr/bin/python3)
#   NOASM      set to 0 to skip the -tags noasm run
#
# Run it when the machine is otherwise quiet: the Go numbers use both cores
# for batched work, PyTorch uses THREADS.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCHTIME=${BENCHTIME:-2s}
COUNT=${COUNT:-3}
THREADS=${THREADS:-1}
PYTHON=${PYTHON:-/usr/bin/python3}
NOASM=${NOASM:-1}
pattern='MLPStep1|MLPForward6660|CNNStep64|CNNStep1|CNNForward12665'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median NAME-LIST FILE: prints "name median-ns/op" from go test output.
median() {
	awk '/^Benchmark/ && / ns\/op/ {
		name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
		for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") v[name] = v[name] " " $i
	}
	END {
		for (n in v) {
			k = split(substr(v[n], 2), a, " ")
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
			m = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
			printf "%s %.0f\n", n, m
		}
	}' "$1"
}

echo "# go test -bench '$pattern' -benchtime $BENCHTIME -count $COUNT ./nn" >&2
go test -run '^$' -bench "$pattern" -benchtime "$BENCHTIME" -count "$COUNT" ./nn >"$tmp/go.raw"
median "$tmp/go.raw" >"$tmp/go"
if [ "$NOASM" != 0 ]; then
	echo "# the same with -tags noasm" >&2
	go test -tags noasm -run '^$' -bench "$pattern" -benchtime "$BENCHTIME" -count "$COUNT" ./nn >"$tmp/noasm.raw"
	median "$tmp/noasm.raw" >"$tmp/noasm"
else
	: >"$tmp/noasm"
fi

pyargs=(--threads "$THREADS")
case "$BENCHTIME" in
*s) pyargs+=(--benchtime "${BENCHTIME%s}") ;;
esac
echo "# $PYTHON bench/engine_torch.py ${pyargs[*]}" >&2
"$PYTHON" bench/engine_torch.py "${pyargs[@]}" | awk '$3 == "ns/op" { print $1, $2 }' >"$tmp/torch"

awk -v go="$tmp/go" -v noasm="$tmp/noasm" -v torch="$tmp/torch" -v threads="$THREADS" '
function load(f, arr,   line, p) { while ((getline line < f) > 0) { split(line, p, " "); arr[p[1]] = p[2] } }
function fmt(v) { return v == "" ? "-" : sprintf("%.0f", v) }
BEGIN {
	load(go, g); load(noasm, n); load(torch, t)
	split("MLPStep1 MLPForward6660 CNNStep64 CNNStep1 CNNForward12665", names, " ")
	printf "%-16s %14s %14s %14s %10s\n", "workload", "Go ns/op", "Go noasm", "PyTorch(" threads "t)", "Go/PyTorch"
	for (i = 1; i <= 5; i++) {
		w = names[i]
		r = (w in g && w in t && t[w] > 0) ? sprintf("%.3f", g[w] / t[w]) : "-"
		printf "%-16s %14s %14s %14s %10s\n", w, fmt(g[w]), fmt(n[w]), fmt(t[w]), r
	}
}'
