#!/usr/bin/env bash
# Compares the nn engine with PyTorch on the six engine workloads
# (see nn/bench_test.go and bench/engine_torch.py) and prints one table:
# workload, Go ns/op, Go noasm ns/op (pure-Go GEMM), PyTorch ns/op, Go/PyTorch.
#
# It is the equivalent of
#   go test -run '^$' -bench 'MLPStep1|MLPForward6660|CNNStep64|CNNStep1|CNNForward12665|ImageCNNStep64' -benchtime $BENCHTIME ./nn
#   go test -tags noasm ... ./nn
#   /usr/bin/python3 bench/engine_torch.py --threads $THREADS
# but the test binaries are built once and the three runs are interleaved
# workload by workload, COUNT rounds, so that load from other processes hits
# all columns alike; each cell is the median of its rounds.
#
# Environment:
#   BENCHTIME  go -benchtime per run (default 1s; PyTorch gets the same number
#              of seconds when it is given in seconds)
#   COUNT      rounds (default 3)
#   THREADS    PyTorch threads (default 1)
#   PYTHON     interpreter with torch (default /usr/bin/python3)
#   NOASM      set to 0 to skip the -tags noasm column
#   ONLY       regular expression selecting workloads (default all six)
#
# The Go numbers use every core for batched work (GOMAXPROCS), PyTorch uses
# THREADS. Run it when the machine is otherwise quiet.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCHTIME=${BENCHTIME:-1s}
COUNT=${COUNT:-3}
THREADS=${THREADS:-1}
PYTHON=${PYTHON:-/usr/bin/python3}
NOASM=${NOASM:-1}
ONLY=${ONLY:-.}
workloads=(MLPStep1 MLPForward6660 CNNStep64 CNNStep1 CNNForward12665 ImageCNNStep64)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go test -c -o "$tmp/nn.test" ./nn
if [ "$NOASM" != 0 ]; then
	go test -tags noasm -c -o "$tmp/nn-noasm.test" ./nn
fi
pyargs=(--threads "$THREADS")
case "$BENCHTIME" in
*ms) pyargs+=(--benchtime "$(awk -v t="${BENCHTIME%ms}" 'BEGIN { print t / 1000 }')") ;;
*s) pyargs+=(--benchtime "${BENCHTIME%s}") ;;
esac

# gobench BINARY NAME: prints ns/op of one Go benchmark run.
gobench() {
	(cd nn && "$1" -test.run '^$' -test.bench "^Benchmark$2\$" -test.benchtime "$BENCHTIME") |
		awk '/^Benchmark/ { for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") print $i }'
}

echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $COUNT rounds, benchtime $BENCHTIME, PyTorch threads $THREADS" >&2
for round in $(seq "$COUNT"); do
	for w in "${workloads[@]}"; do
		[[ $w =~ $ONLY ]] || continue
		echo "# round $round: $w" >&2
		echo "go $w $(gobench "$tmp/nn.test" "$w")" >>"$tmp/results"
		if [ "$NOASM" != 0 ]; then
			echo "noasm $w $(gobench "$tmp/nn-noasm.test" "$w")" >>"$tmp/results"
		fi
		"$PYTHON" bench/engine_torch.py "${pyargs[@]}" --only "^$w\$" 2>/dev/null |
			awk '$3 == "ns/op" { print "torch", $1, $2 }' >>"$tmp/results"
	done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

awk -v threads="$THREADS" -v workloads="${workloads[*]}" '
NF == 3 { v[$1, $2] = v[$1, $2] " " $3 }
function median(s,   a, k, i, j, t) {
	if (s == "") return ""
	k = split(substr(s, 2), a, " ")
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function fmt(x) { return x == "" ? "-" : sprintf("%.0f", x) }
END {
	k = split(workloads, names, " ")
	printf "%-16s %14s %14s %14s %10s\n", "workload", "Go ns/op", "Go noasm", "PyTorch(" threads "t)", "Go/PyTorch"
	for (i = 1; i <= k; i++) {
		w = names[i]
		g = median(v["go", w]); n = median(v["noasm", w]); t = median(v["torch", w])
		if (g == "" && t == "") continue
		r = (g != "" && t != "" && t > 0) ? sprintf("%.3f", g / t) : "-"
		printf "%-16s %14s %14s %14s %10s\n", w, fmt(g), fmt(n), fmt(t), r
	}
}' "$tmp/results"
