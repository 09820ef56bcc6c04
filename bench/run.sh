#!/usr/bin/env bash
# One command, one table: nsvm against its peers (PyTorch, LIBSVM) on this
# machine. See bench/README.md.
#
#   bench/run.sh [--quick] [--seeds N] [--algos 1,2,3,4] [--torch-threads 1,2]
#                [--torch-all-splits] [--torch-timeout SEC] [--skip-mnist]
#                [--skip-svm] [--skip-engine] [--skip-pegasos]
#
# Results go to bench/out/ (git-ignored); the table is printed at the end
# and written with everything else to bench/out/summary.json.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=bench/out
export PATH="/usr/local/go/bin:$PATH"

QUICK=0
SEEDS=""
TORCH_TIMEOUT=""
TORCH_THREADS=""
TORCH_ALL_SPLITS=0
ALGOS="1,2,3,4"
SKIP_MNIST=0 SKIP_SVM=0 SKIP_ENGINE=0 SKIP_PEGASOS=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --seeds) SEEDS="$2"; shift ;;
    --torch-timeout) TORCH_TIMEOUT="$2"; shift ;;
    --torch-threads) TORCH_THREADS="$2"; shift ;;
    --torch-threads=*) TORCH_THREADS="${1#*=}" ;;
    --torch-all-splits) TORCH_ALL_SPLITS=1 ;;
    --torch-timeout=*) TORCH_TIMEOUT="${1#*=}" ;;
    --seeds=*) SEEDS="${1#*=}" ;;
    --algos) ALGOS="$2"; shift ;;
    --algos=*) ALGOS="${1#*=}" ;;
    --skip-mnist) SKIP_MNIST=1 ;;
    --skip-svm) SKIP_SVM=1 ;;
    --skip-engine) SKIP_ENGINE=1 ;;
    --skip-pegasos) SKIP_PEGASOS=1 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$QUICK" = 1 ]; then
  SCALE=0.1; SEEDS=${SEEDS:-1}; TORCH_TIMEOUT=${TORCH_TIMEOUT:-120}; TORCH_THREADS=${TORCH_THREADS:-1}
else
  SCALE=1; SEEDS=${SEEDS:-2}; TORCH_TIMEOUT=${TORCH_TIMEOUT:-600}; TORCH_THREADS=${TORCH_THREADS:-1,2}
fi
case "$TORCH_THREADS" in ''|*[!0-9,]*) echo "bench/run.sh: --torch-threads wants e.g. 1,2" >&2; exit 2 ;; esac
case "$SEEDS" in ''|*[!0-9]*|0) echo "bench/run.sh: --seeds wants a positive integer" >&2; exit 2 ;; esac

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

mkdir -p "$OUT"
# Results of an earlier run would mix with this one's: keep only the binary.
find "$OUT" -mindepth 1 -maxdepth 1 ! -name nsvm -exec rm -rf {} +
NOTES="$OUT/notes.txt"
: > "$NOTES"
note() { printf '%s\t%s\n' "$1" "$2" >> "$NOTES"; echo "bench: $1: $2" >&2; }
log() { echo "bench: $*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
T0=$(now)

HAVE_TORCH=0
if "$PY" -c 'import torch, numpy' 2>/dev/null; then HAVE_TORCH=1; else note torch "python3 with torch and numpy not found: PyTorch peers skipped"; fi

# --- build -----------------------------------------------------------------
log "building bench/out/nsvm"
HAVE_NSVM=0
if go build -o "$OUT/nsvm" ./cmd/nsvm 2> "$OUT/build.log"; then
  HAVE_NSVM=1
else
  note nsvm "go build ./cmd/nsvm failed (see $OUT/build.log): nsvm sides skipped"
fi

cat > "$OUT/meta.json" <<EOF
{"quick": $QUICK, "seeds": $SEEDS, "steps_scale": $SCALE, "algos": "$ALGOS", "torch_threads": "$TORCH_THREADS",
 "torch_timeout": $TORCH_TIMEOUT,
 "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "commit": "$(git rev-parse --short HEAD 2>/dev/null)",
 "nproc": $(nproc), "go": "$(go env GOVERSION 2>/dev/null)",
 "torch": "$("$PY" -c 'import torch; print(torch.__version__)' 2>/dev/null)",
 "cpu": "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//; s/"//g')"}
EOF

# run_torch OUTFILE SPLIT THREADS ARGS... : one PyTorch run, appended as a
# JSON line {"split", "threads", "wall_seconds", "result" | "error_log"
# [, "timeout"]}. A run longer than $TORCH_TIMEOUT seconds is stopped.
run_torch() {
  local out=$1 split=$2 th=$3; shift 3
  local t res rc w errf="${out%.jsonl}_s${split}_t${th}.err"
  t=$(now)
  timeout "$TORCH_TIMEOUT" "$PY" bench/torch_nsvm.py --threads "$th" "$@" > "$errf.out" 2> "$errf"
  rc=$?
  w=$(since "$t")
  res=$(tail -n 1 "$errf.out")
  rm -f "$errf.out"
  if [ "$rc" = 0 ] && [ "${res:0:1}" = "{" ]; then
    printf '{"split": %s, "threads": %s, "wall_seconds": %s, "result": %s}\n' "$split" "$th" "$w" "$res" >> "$out"
  elif [ "$rc" = 124 ]; then
    printf '{"split": %s, "threads": %s, "wall_seconds": %s, "timeout": %s, "error_log": "%s"}\n' "$split" "$th" "$w" "$TORCH_TIMEOUT" "$errf" >> "$out"
    log "torch run stopped after $TORCH_TIMEOUT s"
  else
    printf '{"split": %s, "threads": %s, "wall_seconds": %s, "error_log": "%s"}\n' "$split" "$th" "$w" "$errf" >> "$out"
    log "torch run failed, see $errf"
  fi
}

# run_nsvm OUTPREFIX ARGS... : one `nsvm reproduce --json` run; writes
# OUTPREFIX.json and OUTPREFIX.wall (seconds for the whole process).
run_nsvm() {
  local pre=$1; shift
  local t; t=$(now)
  if "$OUT/nsvm" reproduce "$@" --json --quiet > "$pre.json" 2> "$pre.err"; then
    since "$t" > "$pre.wall"
    return 0
  fi
  since "$t" > "$pre.wall"
  rm -f "$pre.json"
  return 1
}

# --- Ringnorm, Algorithms 1-4 ----------------------------------------------
if [ "$HAVE_NSVM" = 1 ]; then
  mkdir -p "$OUT/ringnorm"
  DATA_ARGS=()
  if [ -f "$ROOT/../shared/data/ringnorm.csv" ]; then
    DATA_ARGS=(--data "$ROOT/../shared/data/ringnorm.csv")
    echo "delve" > "$OUT/ringnorm/source"
  else
    echo "generated" > "$OUT/ringnorm/source"
    note ringnorm "../shared/data/ringnorm.csv not found: using generated Ringnorm"
  fi
  for a in ${ALGOS//,/ }; do
    log "ringnorm algorithm $a: nsvm ($SEEDS seed(s), steps x$SCALE)"
    if ! run_nsvm "$OUT/ringnorm/nsvm_alg$a" ringnorm --algo "$a" --seeds "$SEEDS" --steps-scale "$SCALE" \
        "${DATA_ARGS[@]}" --save-splits "$OUT/ringnorm/splits"; then
      note "ringnorm_alg$a" "nsvm reproduce failed: $(tail -n 1 "$OUT/ringnorm/nsvm_alg$a.err")"
      continue
    fi
    [ "$HAVE_TORCH" = 1 ] || continue
    for s in $(seq 1 "$SEEDS"); do
      for th in ${TORCH_THREADS//,/ }; do
        # The first thread count runs on every split; the others, which only
        # measure speed (results do not depend on it), on split 1.
        if [ "$s" -gt 1 ] && [ "$th" != "${TORCH_THREADS%%,*}" ] && [ "$TORCH_ALL_SPLITS" = 0 ]; then continue; fi
        log "ringnorm algorithm $a: torch split $s, $th thread(s)"
        run_torch "$OUT/ringnorm/torch_alg$a.jsonl" "$s" "$th" --config "$OUT/ringnorm/nsvm_alg$a.json" \
          --algo "$a" --task ringnorm --seed "$s" \
          --train "$OUT/ringnorm/splits/split$s/train.csv" --test "$OUT/ringnorm/splits/split$s/test.csv"
      done
    done
  done
fi

# --- MNIST 0/1, Algorithms 3 and 4 -----------------------------------------
MNIST_DIR="${NSVM_MNIST_DIR:-/work/mnist}"
if [ "$SKIP_MNIST" = 1 ]; then
  note mnist "skipped (--skip-mnist)"
elif [ ! -f "$MNIST_DIR/train-images-idx3-ubyte" ] || [ ! -f "$MNIST_DIR/t10k-labels-idx1-ubyte" ]; then
  note mnist "MNIST IDX files not in $MNIST_DIR (set NSVM_MNIST_DIR, or fetch with: nsvm data mnist --dir $MNIST_DIR): skipped"
elif [ "$HAVE_NSVM" = 1 ]; then
  mkdir -p "$OUT/mnist"
  for a in 3 4; do
    case ",$ALGOS," in *",$a,"*) ;; *) continue ;; esac
    log "mnist01 algorithm $a: nsvm (1 seed, steps x$SCALE)"
    if ! run_nsvm "$OUT/mnist/nsvm_alg$a" mnist01 --algo "$a" --seeds 1 --steps-scale "$SCALE" --data "$MNIST_DIR"; then
      note "mnist_alg$a" "nsvm reproduce failed: $(tail -n 1 "$OUT/mnist/nsvm_alg$a.err")"
      continue
    fi
    [ "$HAVE_TORCH" = 1 ] || continue
    for th in ${TORCH_THREADS//,/ }; do
      log "mnist01 algorithm $a: torch, $th thread(s)"
      run_torch "$OUT/mnist/torch_alg$a.jsonl" 1 "$th" --config "$OUT/mnist/nsvm_alg$a.json" \
        --algo "$a" --task mnist01 --seed 1 --mnist "$MNIST_DIR"
    done
  done
fi

# --- SMO vs svm-train --------------------------------------------------------
if [ "$SKIP_SVM" = 1 ]; then
  note svm_libsvm "skipped (--skip-svm)"
elif [ -f bench/svm_libsvm.sh ]; then
  log "SMO vs svm-train: bench/svm_libsvm.sh"
  t=$(now)
  if NSVM_MNIST_DIR="$MNIST_DIR" BENCH_QUICK=$QUICK bash bench/svm_libsvm.sh > "$OUT/svm_libsvm.txt" 2> "$OUT/svm_libsvm.log"; then
    :
  else
    note svm_libsvm "bench/svm_libsvm.sh failed (see $OUT/svm_libsvm.log)"
  fi
  since "$t" > "$OUT/svm_libsvm.wall"
else
  note svm_libsvm "bench/svm_libsvm.sh not present: skipped"
fi

# --- Kernel Pegasos step at fixed #SV ----------------------------------------
if [ "$SKIP_PEGASOS" = 1 ]; then
  note pegasos "skipped (--skip-pegasos)"
else
  log "Pegasos step: go test -bench PegasosStep ./svm"
  if go test -run '^$' -bench 'PegasosStep' -benchtime 1s -benchmem ./svm > "$OUT/pegasos_go.txt" 2>&1 \
      && grep -q '^BenchmarkPegasosStep' "$OUT/pegasos_go.txt"; then
    :
  else
    note pegasos_go "no BenchmarkPegasosStep in ./svm (see $OUT/pegasos_go.txt)"
  fi
  # The feature dimension the Go benchmark uses, if its names say (…/d=N).
  DIM=$(grep -o 'd=[0-9]*' "$OUT/pegasos_go.txt" 2>/dev/null | head -n 1 | cut -d= -f2)
  DIM=${DIM:-${PEGASOS_DIM:-20}}
  if [ "$HAVE_TORCH" = 1 ]; then
    log "Pegasos step: bench/pegasos_torch.py (d=$DIM, 1 thread)"
    "$PY" bench/pegasos_torch.py --nsv 1000,10000 --dim "$DIM" --threads 1 > "$OUT/pegasos_torch.txt" 2> "$OUT/pegasos_torch.log" \
      || note pegasos_torch "bench/pegasos_torch.py failed (see $OUT/pegasos_torch.log)"
    echo "$DIM" > "$OUT/pegasos_dim"
  fi
fi

# --- nn engine ---------------------------------------------------------------
if [ "$SKIP_ENGINE" = 1 ]; then
  note engine "skipped (--skip-engine)"
elif [ -f bench/engine_compare.sh ]; then
  log "engine benchmarks: bench/engine_compare.sh"
  t=$(now)
  if [ "$QUICK" = 1 ]; then ENGINE_ENV=(BENCHTIME=0.5s COUNT=1); else ENGINE_ENV=(BENCHTIME=2s COUNT=3); fi
  if env "${ENGINE_ENV[@]}" THREADS=1 PYTHON="$PY" bash bench/engine_compare.sh > "$OUT/engine_compare.txt" 2> "$OUT/engine_compare.log"; then
    :
  else
    note engine "bench/engine_compare.sh failed (see $OUT/engine_compare.log)"
  fi
  since "$t" > "$OUT/engine_compare.wall"
else
  note engine "bench/engine_compare.sh not present: skipped"
fi

echo "$(since "$T0")" > "$OUT/total.wall"
"$PY" bench/summarize.py "$OUT"
