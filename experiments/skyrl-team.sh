#!/usr/bin/env bash
# bash experiments/skyrl-team.sh [OUT_DIR]        (default runs/skyrl-team; after npm run build)
#
# The same team trained three ways from one warm-started model, one run after the other:
#   embedded     examples/skyrl-team.yaml on Troupe's own engine (it also makes the warm-started
#                base/ the two service runs load);
#   troupe-serve policy.kind: tinker against `troupe serve --tinker` on that base;
#   skyrl        policy.kind: tinker against SkyRL tx serving that base on the CPU.
# Each run records held-out success before its first step (eval step -1) and after its last;
# the script ends with one line per run. docs/distributed.md ("SkyRL tx") has the numbers.
#
# SkyRL tx runs from the venv scripts/skyrl-check.sh builds (run the check once first; the
# venv then holds SkyRL tx at the check's pinned commit): SKYRL_CHECK_VENV, default
# .cache/skyrl-venv. ONLY=embedded,troupe-serve skips the others (e.g. with no venv).
# Environment: PORT (SkyRL tx, default 8767; Troupe's server uses PORT + 1), EXTRA (more
# --set options for every run).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wait-for-server.sh
OUT=${1:-runs/skyrl-team}
CONFIG=examples/skyrl-team.yaml
CLI=(node dist/src/cli/main.js)
ONLY=${ONLY:-embedded,troupe-serve,skyrl}
PORT=${PORT:-8767}
VENV=$(realpath -m "${SKYRL_CHECK_VENV:-.cache/skyrl-venv}")
read -r -a EXTRA_SET <<< "${EXTRA:-}"
[ -f dist/src/cli/main.js ] || { echo "build first: npm run build" >&2; exit 2; }
mkdir -p "$OUT"
BASE=$(realpath "$OUT")/embedded/base
SERVER_PIDS=()
cleanup() { for pid in "${SERVER_PIDS[@]}"; do kill -- -"$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
wants() { [[ ",$ONLY," == *",$1,"* ]]; }
since() { echo "$(( $(date +%s) - $1 )) s"; }

# Starts "$@" in its own process group, so that cleanup ends it with its children.
start_server() { local log=$1; shift; setsid "$@" >"$log" 2>&1 & SERVER_PIDS+=($!); }

# train_through NAME URL [--set ...]: trains the warm-started base through the Tinker service
# at URL.
train_through() {
  local name=$1 url=$2 start; shift 2; start=$(date +%s)
  TINKER_API_KEY=${TINKER_API_KEY:-tml-troupe} "${CLI[@]}" train "$CONFIG" --run-dir "$OUT/$name" \
    --set policy.kind=tinker --set "policy.tinker.base_url=$url" --set "model.path=$BASE" \
    --set warm_start.enabled=false "$@" "${EXTRA_SET[@]}"
  echo "$name: $(since "$start")"
}

if wants embedded || [ ! -d "$BASE" ]; then
  start=$(date +%s)
  "${CLI[@]}" train "$CONFIG" --run-dir "$OUT/embedded" "${EXTRA_SET[@]}"
  echo "embedded: $(since "$start")"
fi

if wants troupe-serve; then
  start_server "$OUT/troupe-serve.log" "${CLI[@]}" serve --tinker --model "$BASE" --port $((PORT + 1)) \
    --lora-alpha 32 --no-hf-cache --state-dir "$OUT/troupe-serve-state"
  wait_for_server "http://127.0.0.1:$((PORT + 1))/api/v1/healthz" "${SERVER_PIDS[-1]}" "$OUT/troupe-serve.log" 300
  train_through troupe-serve "http://127.0.0.1:$((PORT + 1))"
fi

if wants skyrl; then
  "$VENV/bin/python" -c 'import skyrl.tinker.api' 2>/dev/null || {
    echo "no SkyRL tx in $VENV: run scripts/skyrl-check.sh once (it builds the venv), or set SKYRL_CHECK_VENV" >&2; exit 2; }
  # SkyRL tx starts its engine with `uv run`; the check's shim stands in for it (no uv needed).
  mkdir -p "$OUT/skyrl-bin" && ln -sf "$PWD/scripts/skyrl-uv-shim.sh" "$OUT/skyrl-bin/uv"
  start=$(date +%s)
  # One XLA thread on the CPU. Fixed sampling and training batch shapes: JAX compiles a program
  # per shape, and each compile costs minutes on a busy CPU; the compiled programs are kept on
  # disk for the next start. Micro-batches of one sequence: a batch cut into micro-batches of 32
  # ends in a smaller one whose size changes from step to step, and each size compiled anew.
  JAX_COMPILATION_CACHE_DIR="$(realpath "$OUT")/jax-cache" JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0 OMP_NUM_THREADS=1 JAX_PLATFORMS=cpu XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
    PATH="$(realpath "$OUT/skyrl-bin"):$PATH" SKYRL_PYTHON="$VENV/bin/python" \
    start_server "$OUT/skyrl.log" uv run -m skyrl.tinker.api --base-model "$BASE" --backend jax --port "$PORT" \
    --checkpoints-base "$(realpath "$OUT")/skyrl-checkpoints" --database-url "sqlite:///$(realpath "$OUT")/skyrl.db" \
    --backend-config '{"max_lora_adapters": 8, "max_lora_rank": 8, "sample_max_num_sequences": 32, "train_micro_batch_size": 1}'
  wait_for_server "http://127.0.0.1:$PORT/api/v1/healthz" "${SERVER_PIDS[-1]}" "$OUT/skyrl.log" 3000
  echo "SkyRL tx up in $(since "$start")"
  # At most 14 sampling requests at once: an evaluation's 400 at once exhausted the 15
  # connections of SkyRL tx's SQLite database, and it then answered 500 to every request.
  # SkyRL tx averages each datum's loss over its weights and the datums over the step:
  # loss_reduction mean makes the learner send what gives Troupe's gradient there.
  train_through skyrl "http://127.0.0.1:$PORT" --set policy.tinker.concurrency=14 --set policy.tinker.loss_reduction=mean
fi

# One line per run: held-out success before the first step and after the last, 95% intervals.
for run in embedded troupe-serve skyrl; do
  [ -f "$OUT/$run/metrics.jsonl" ] || continue
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const evals = lines.filter((r) => r.kind === "eval");
    const pct = (r) => `${(100 * r.success_rate).toFixed(1)}% (${(100 * r.ci_low).toFixed(0)}-${(100 * r.ci_high).toFixed(0)}%, n=${r.n})`;
    console.log(`${process.argv[2].padEnd(13)} base ${pct(evals[0])}   after step ${evals.at(-1).step + 1}: ${pct(evals.at(-1))}`);
  ' "$OUT/$run/metrics.jsonl" "$run"
done
