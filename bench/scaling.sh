#!/usr/bin/env bash
# Scaling figures: time per step against the number of support vectors for
# kernel Pegasos (nsvm and PyTorch, one thread) and Algorithm 1 (nsvm), and
# SMO training time against n (generated Ringnorm, 1000 … 60000 training
# points) next to LIBSVM's svm-train. Writes bench/out/scaling.json,
# bench/out/scaling_steps.svg and bench/out/scaling_smo.svg and prints the
# table. About 5 minutes on 2 cores.
#
#   bash bench/scaling.sh
#   SCALING_SIZES=1000,3000,10000 bash bench/scaling.sh   # quicker SMO part
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
OUT=bench/out
mkdir -p "$OUT"
PY=/usr/bin/python3
SIZES=${SCALING_SIZES:-1000,3000,10000,30000,60000}

echo "scaling: Go step benchmarks" >&2
go test -run '^$' -bench 'PegasosStep$' -benchtime 1s ./svm > "$OUT/scaling_go.txt"
go test -run '^$' -bench 'Alg1Step' -benchtime 1s . >> "$OUT/scaling_go.txt"
if "$PY" -c 'import torch' 2>/dev/null; then
  echo "scaling: PyTorch Pegasos step" >&2
  "$PY" bench/pegasos_torch.py --nsv 1000,3000,10000,30000 --dim 20 --threads 1 > "$OUT/scaling_torch.txt"
else
  echo "scaling: no PyTorch (apt-get install python3-torch); Pegasos peer left out" >&2
  : > "$OUT/scaling_torch.txt"
fi
echo "scaling: SMO against svm-train, n = $SIZES" >&2
data=$(echo "$SIZES" | sed 's/\([0-9][0-9]*\)/ringnorm:\1/g')
go run ./bench/cmd/svmbench -reps 1 -m 200 -data "$data" -jsonl > "$OUT/scaling_smo.txt"
grep '^{' "$OUT/scaling_smo.txt" > "$OUT/scaling_smo.jsonl" || true
go run ./bench/cmd/scaling -go "$OUT/scaling_go.txt" -torch "$OUT/scaling_torch.txt" -smo "$OUT/scaling_smo.jsonl" -out "$OUT"
