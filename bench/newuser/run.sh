#!/usr/bin/env bash
# A new user's churn table with a date column, trained three ways: the date
# read as dates (this tree), the date one-hot encoded (the nsvm of BASE, before
# columns of dates), and the date column removed (this tree). Prints a Markdown
# table: model size, test accuracy, wall seconds of nsvm train.
#
#   bench/newuser/run.sh [--base COMMIT] [--seed N] [--out DIR]
#
# BASE defaults to a35dd26, the last commit before columns of dates. Its tree
# is taken with git archive (the repository's work trees are left alone).
# Everything is written under DIR (default $NSVM_BENCH_DIR/newuser, or
# /tmp/nsvm-bench/newuser).
set -euo pipefail
base=a35dd26
seed=1
out=${NSVM_BENCH_DIR:-/tmp/nsvm-bench}/newuser
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: $0 [--base COMMIT] [--seed N] [--out DIR]" >&2; exit 2 ;;
	esac
done
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
(cd "$root" && go build -o "$out/nsvm" ./cmd/nsvm)
rm -rf "$out/base-src" && mkdir -p "$out/base-src"
(cd "$root" && git archive "$base") | tar -x -C "$out/base-src"
(cd "$out/base-src" && go build -o "$out/nsvm-base" ./cmd/nsvm)
python3 "$root/bench/newuser/churn.py" --out "$out/data" --seed "$seed" >&2

# run NAME BINARY TRAIN TEST: trains with no flag, evaluates on TEST.
run() {
	local name=$1 bin=$2 train=$3 test=$4
	local start end acc bytes
	start=$(date +%s.%N)
	"$bin" train --data "$train" --model "$out/$name.nsvm" --seed "$seed" >"$out/$name.train.log" 2>&1
	end=$(date +%s.%N)
	acc=$("$bin" eval --model "$out/$name.nsvm" --data "$test" | sed -n 's/^accuracy \([0-9.]*\)%.*/\1/p')
	bytes=$(stat -c %s "$out/$name.nsvm")
	printf '| %s | %s | %.2f MB (%d bytes) | %.1f %% | %.0f s |\n' "$name" "$(basename "$bin")" "$(echo "$bytes / 1000000" | bc -l)" "$bytes" "$acc" "$(echo "$end - $start" | bc -l)"
}

echo "| signup_date | binary | model | test accuracy | nsvm train |"
echo "|---|---|---|---|---|"
run dates "$out/nsvm" "$out/data/train.csv" "$out/data/test.csv"
run one-hot "$out/nsvm-base" "$out/data/train.csv" "$out/data/test.csv"
run removed "$out/nsvm" "$out/data/train-nodate.csv" "$out/data/test-nodate.csv"
