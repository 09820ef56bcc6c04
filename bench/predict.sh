#!/usr/bin/env bash
# nsvm predict against LIBSVM's svm-predict on the same LIBSVM model file:
# svm-train's RBF model (C = 10, γ = 0.02) of the first 10 000 MNIST training
# images (pixels/255), ten classes one-vs-one, predicting the 10 000 test
# images. Both read the same LIBSVM files; the script prints each run's wall
# time and peak RSS, side by side, how many labels differ, and one JSON line.
#
#   bash bench/predict.sh [--rounds N]     # N runs of each, alternating (default 3)
#
# Reads the IDX files in $NSVM_MNIST_DIR (default /tmp/nsvm-bench/images/mnist,
# where bench/images/run.sh puts them); writes to $NSVM_BENCH_DIR/predict
# (default /tmp/nsvm-bench/predict). Needs Go, /usr/bin/python3 (or $PYTHON) with numpy and
# libsvm-tools (svm-train, svm-predict).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    *) echo "predict.sh: unknown flag $1" >&2; exit 2 ;;
  esac
done
mnist="${NSVM_MNIST_DIR:-/tmp/nsvm-bench/images/mnist}"
out="${NSVM_BENCH_DIR:-/tmp/nsvm-bench}/predict"
py=${PYTHON:-/usr/bin/python3}
for tool in svm-train svm-predict "$py"; do
  command -v "$tool" >/dev/null || { echo "predict.sh: $tool not found (apt-get install libsvm-tools python3-numpy)" >&2; exit 1; }
done
[ -f "$mnist/train-images-idx3-ubyte" ] || { echo "predict.sh: no MNIST IDX files in $mnist (bash bench/images/run.sh fetches them)" >&2; exit 1; }
mkdir -p "$out"
go build -o "$out/nsvm" ./cmd/nsvm

if [ ! -f "$out/test.libsvm" ]; then
  "$py" - "$mnist" "$out" <<'EOF'
import sys
import numpy as np
src, out = sys.argv[1], sys.argv[2]
def images(p):
    b = open(p, 'rb').read()
    return np.frombuffer(b, np.uint8, offset=16).reshape(-1, 784)
def labels(p):
    return np.frombuffer(open(p, 'rb').read(), np.uint8, offset=8)
for name, x, y in [('train', 'train-images-idx3-ubyte', 'train-labels-idx1-ubyte'),
                   ('test', 't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte')]:
    X, Y = images(f'{src}/{x}')[:10000] / 255.0, labels(f'{src}/{y}')[:10000]
    with open(f'{out}/{name}.libsvm', 'w') as f:
        for row, label in zip(X, Y):
            nz = np.nonzero(row)[0]
            f.write(str(int(label)) + ' ' + ' '.join('%d:%.4g' % (j + 1, row[j]) for j in nz) + '\n')
EOF
fi
if [ ! -f "$out/mnist.model" ]; then
  echo "svm-train -c 10 -g 0.02 on 10000 rows …" >&2
  svm-train -q -c 10 -g 0.02 "$out/train.libsvm" "$out/mnist.model"
fi

run() { # name command… : prints "seconds peak_kb"
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$@" >/dev/null 2>"$out/$name.err" || { cat "$out/$name.err" >&2; exit 1; }
  cat "$out/$name.time"
}
printf '%-6s %-14s %8s %9s\n' round program seconds "peak MB"
best_lib=1e9 best_ours=1e9
for r in $(seq "$rounds"); do
  read -r s kb < <(run lib svm-predict "$out/test.libsvm" "$out/mnist.model" "$out/lib.txt")
  printf '%-6s %-14s %8s %9d\n' "$r" svm-predict "$s" $((kb / 1024))
  best_lib=$("$py" -c "print(min($best_lib, $s))")
  read -r s kb < <(run ours "$out/nsvm" predict --model "$out/mnist.model" --data "$out/test.libsvm" --dim 784 --out-format libsvm --out "$out/ours.txt")
  printf '%-6s %-14s %8s %9d\n' "$r" "nsvm predict" "$s" $((kb / 1024))
  best_ours=$("$py" -c "print(min($best_ours, $s))")
done
differ=$(paste -d' ' "$out/lib.txt" "$out/ours.txt" | awk '$1 != $2' | wc -l)
total_sv=$(awk '$1 == "total_sv" {print $2}' "$out/mnist.model")
echo "labels that differ: $differ of $(wc -l < "$out/lib.txt") (model: $total_sv support vectors, 45 one-vs-one heads)"
printf '{"bench":"predict","rows":10000,"total_sv":%s,"svm_predict_s":%s,"nsvm_s":%s,"ratio":%s,"labels_differ":%s}\n' \
  "$total_sv" "$best_lib" "$best_ours" "$("$py" -c "print(round($best_ours / $best_lib, 3))")" "$differ"
