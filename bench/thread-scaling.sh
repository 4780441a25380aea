#!/usr/bin/env bash
# How Troupe scales with threads on this machine, and a check that every thread count computes
# the same numbers. For a machine with more cores than the development machine's two:
#
#   bash bench/thread-scaling.sh [THREADS ...]      # default: 1 2 4 8 ... and the cores
#
# 1. `troupe bench engine --threads MAX --json`: the standard benchmark's full training step and
#    two matmuls on 1, 2, 4, ... MAX threads, and whether every count gave the same losses.
# 2. examples/smoke.yaml trained with TROUPE_THREADS=N for N in TRAIN_THREADS, as written (hidden
#    32: its products are too small to split) and widened to hidden 256 (they split); each run's
#    metrics (timing fields aside), warm-start weights, rollouts, weights and optimizer state
#    are compared with the 1-thread run's: EQUAL or DIFFERENT.
# 3. bench/thread-scaling-model.ts: a random Qwen3-shaped bf16 model (hidden 1024, MODEL_LAYERS
#    layers, vocabulary MODEL_VOCAB) at every thread count: a LoRA training step, decoding at
#    batch 1 and 16, prefill, and whether every count computed the same numbers.
# 4. bench/sandbox-concurrency.ts: 64 small Python programs through the code sandbox at each
#    thread count as its concurrency; programs per second (skipped, with the reason, where
#    the machine cannot sandbox).
# Then one summary (bench/thread-scaling-report.ts). Everything goes into $OUT (default
# runs/thread-scaling): engine.json, model.json, train.jsonl, sandbox.json, table.txt, log.txt
# (every progress line) and runs.tar.gz (the training runs' metrics.jsonl).
#
# Environment: OUT; NODE (default node); BACKEND (auto, native or wasm; default auto);
# TRAIN_THREADS (default "4 MAX"; 1 always runs as the reference; counts above MAX are left
# out); MODEL_LAYERS (default 8); MODEL_VOCAB (default 32768); MODEL_SIZES (--full for `bench
# model`'s work, --quick for a smoke test; default the scaling sizes); PARTS (default "engine
# train model sandbox").
set -uo pipefail
cd "$(dirname "$0")/.."

NODE="${NODE:-node}"
BACKEND="${BACKEND:-${TROUPE_BACKEND:-auto}}"
OUT="${OUT:-runs/thread-scaling}"
PARTS="${PARTS:-engine train model sandbox}"
CORES="$(nproc)"
if [ $# -gt 0 ]; then
  THREADS=("$@")
else
  THREADS=()
  for ((t = 1; t < CORES; t *= 2)); do THREADS+=("$t"); done
  THREADS+=("$CORES")
fi
for t in "${THREADS[@]}"; do
  [[ "$t" =~ ^[1-9][0-9]*$ ]] || { echo "thread-scaling: thread counts must be whole numbers from 1, got '$t'" >&2; exit 2; }
done
MAX="$(printf '%s\n' "${THREADS[@]}" | sort -n | tail -1)"
LIST="$(printf '%s\n' "${THREADS[@]}" | sort -nu | paste -sd, -)"
# The training runs' thread counts: 1 (the reference) and those of TRAIN_THREADS up to MAX.
TRAIN=(1)
for t in ${TRAIN_THREADS:-4 $MAX}; do
  [[ "$t" =~ ^[1-9][0-9]*$ ]] || { echo "thread-scaling: TRAIN_THREADS must hold whole numbers from 1, got '$t'" >&2; exit 2; }
  if [ "$t" -le "$MAX" ]; then TRAIN+=("$t"); fi
done
mapfile -t TRAIN < <(printf '%s\n' "${TRAIN[@]}" | sort -nu)

[ -f dist/src/cli/main.js ] || { echo "thread-scaling: dist/ is missing; run npx tsc -p tsconfig.json first" >&2; exit 2; }
command -v "$NODE" > /dev/null || { echo "thread-scaling: '$NODE' not found; install Node.js 20 or set NODE=/path/to/node" >&2; exit 2; }
mkdir -p "$OUT"
rm -f "$OUT/engine.json" "$OUT/model.json" "$OUT/train.jsonl" "$OUT/sandbox.json" "$OUT/table.txt" "$OUT/runs.tar.gz"
LOG="$OUT/log.txt"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/troupe-thread-scaling.XXXXXX")"
START=$(date +%s)
say() { echo "thread-scaling [$(( $(date +%s) - START )) s]: $*" | tee -a "$LOG" >&2; }
: > "$LOG"

say "threads ${LIST}; training runs on ${TRAIN[*]}; backend $BACKEND; Node $("$NODE" --version); $CORES cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
{ command -v lscpu > /dev/null && lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L3|Flags)' | cut -c1-400; } >> "$LOG" 2>&1
say "$("$NODE" --input-type=module -e "
  const { createKernels, describeKernels } = await import('./dist/src/engine/kernels/get-kernels.js');
  const kernels = await createKernels({ backend: '$BACKEND', threads: 1 });
  console.log(describeKernels(kernels, '$BACKEND'));
  await kernels.dispose?.();" 2>&1 | tail -1)"

if [[ " $PARTS " == *" engine "* ]]; then
  say "troupe bench engine --threads $MAX"
  "$NODE" dist/src/cli/main.js bench engine --threads "$MAX" --backend "$BACKEND" --json > "$OUT/engine.json" 2>> "$LOG" || say "bench engine failed (exit $?)"
fi

# One training run: $1 name, $2 threads, then extra train arguments; appends to train.jsonl.
train_run() {
  local name="$1" threads="$2" dir="$WORK/$1-t$2" t0 t1 engine equal detail
  shift 2
  t0=$(date +%s%N)
  TROUPE_THREADS="$threads" TROUPE_BACKEND="$BACKEND" "$NODE" dist/src/cli/main.js train examples/smoke.yaml --run-dir "$dir" "$@" > "$dir.log" 2>&1
  local rc=$?
  t1=$(date +%s%N)
  # The backend and threads; why native is unavailable was said once at the start.
  engine="$(grep -m1 '^engine:' "$dir.log" | sed -e 's/^engine: //' -e 's/; native addon unavailable.*$/)/')"
  if [ "$rc" -ne 0 ]; then
    equal=false; detail="train exited $rc: $(tail -1 "$dir.log")"
  elif [ "$threads" = 1 ]; then
    equal=null; detail="reference"
  elif detail="$("$NODE" scripts/compare-metrics.mjs "$WORK/$name-t1" "$dir" --files 2>&1)"; then
    equal=true
  else
    equal=false
  fi
  { echo "--- $name, TROUPE_THREADS=$threads:"; cat "$dir.log"; } >> "$LOG"
  detail="$(printf '%s' "$detail" | head -c 600 | "$NODE" -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0, "utf8")))')"
  echo "{\"run\":\"$name\",\"threads\":$threads,\"wall_s\":$(( (t1 - t0) / 1000000 ))e-3,\"engine\":\"$engine\",\"equal\":$equal,\"detail\":$detail}" >> "$OUT/train.jsonl"
  say "$name on $threads thread(s): $([ "$equal" = true ] && echo EQUAL || { [ "$equal" = null ] && echo reference || echo DIFFERENT; }) ($engine)"
}

if [[ " $PARTS " == *" train "* ]]; then
  WIDE=(--set model.hidden=256 --set model.intermediate=1024 --set model.heads=4 --set warm_start.episodes=50 --set warm_start.epochs=1)
  for t in "${TRAIN[@]}"; do train_run smoke "$t"; done
  for t in "${TRAIN[@]}"; do train_run smoke-h256 "$t" "${WIDE[@]}"; done
  (cd "$WORK" && tar -czf - ./*/metrics.jsonl) > "$OUT/runs.tar.gz" 2>> "$LOG"
fi

if [[ " $PARTS " == *" model "* ]]; then
  say "bench/thread-scaling-model.ts: Qwen3 shape, ${MODEL_LAYERS:-8} layers, vocab ${MODEL_VOCAB:-32768}, threads $LIST"
  # shellcheck disable=SC2086 # MODEL_SIZES is one flag or empty
  "$NODE" dist/bench/thread-scaling-model.js --threads "$LIST" --layers "${MODEL_LAYERS:-8}" --vocab "${MODEL_VOCAB:-32768}" --backend "$BACKEND" ${MODEL_SIZES:-} > "$OUT/model.json" 2> >(tee -a "$LOG" >&2) || say "model scaling failed (exit $?)"
fi

if [[ " $PARTS " == *" sandbox "* ]]; then
  say "bench/sandbox-concurrency.ts: concurrency $LIST"
  "$NODE" dist/bench/sandbox-concurrency.js --concurrency "$LIST" > "$OUT/sandbox.json" 2> >(tee -a "$LOG" >&2) || say "sandbox concurrency failed (exit $?)"
fi

rm -rf "$WORK"
say "done; the files are in $OUT"
"$NODE" dist/bench/thread-scaling-report.js "$OUT" | tee "$OUT/table.txt"
