#!/usr/bin/env bash
# One single-agent GRPO step with LoRA, Troupe against TRL's GRPOTrainer + peft, back to back on one
# machine: `troupe bench grpo-step` and bench/trl-grpo-step.py do the same work (P prompts x K
# completions x N new tokens, then one update); their times and peak memory are printed together.
#
#   bash bench/grpo-step-vs-trl.sh [FOLDER] [--prompts 4] [--k 8] [--tokens 64] [--lora-rank 16] [--threads 2] [--backend native|wasm]
#
# Without a folder it makes (once) a Qwen3-0.6B-shaped checkpoint with random bf16 weights and the
# real Qwen3 tokenizer in .tmp/qwen3-shape (1.2 GB, bench/make-qwen3-shape.ts). The Python side runs
# in $VENV (default .venv-trl in the repository: torch, transformers, peft, trl 1.13). TRL needs ~16 GB of memory
# at the default shape: check `free -g` first on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL=""
BACKEND=auto
SHAPE=()
THREADS=2
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) BACKEND="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --prompts|--k|--tokens|--lora-rank) SHAPE+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) MODEL="$1"; shift ;;
  esac
done
VENV="${VENV:-.venv-trl}"
[ -f dist/src/cli/main.js ] || npx tsc -p tsconfig.json
if [ -z "$MODEL" ]; then
  MODEL=.tmp/qwen3-shape
  [ -f "$MODEL/model.safetensors" ] || node dist/bench/make-qwen3-shape.js "$MODEL"
fi

OUT=.tmp/grpo-step-vs-trl
mkdir -p "$OUT"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "troupe bench grpo-step ($BACKEND, $THREADS threads)" >&2
node dist/src/cli/main.js bench grpo-step "$MODEL" --backend "$BACKEND" --threads "$THREADS" "${SHAPE[@]}" --json > "$OUT/troupe.json"
echo "TRL GRPOTrainer + peft ($THREADS threads)" >&2
"$VENV/bin/python" bench/trl-grpo-step.py "$MODEL" --threads "$THREADS" "${SHAPE[@]}" --json > "$OUT/trl.json"

node --input-type=module - "$OUT" <<'EOF'
import { readFileSync } from 'node:fs';
const [dir] = process.argv.slice(2);
const ours = JSON.parse(readFileSync(`${dir}/troupe.json`, 'utf8'));
// The Trainer prints its own log dict to stdout before the script's JSON: read the last line.
const theirs = JSON.parse(readFileSync(`${dir}/trl.json`, 'utf8').trim().split('\n').pop());
console.log(`step: ${ours.prompts} prompts x ${ours.k} completions x ${ours.new_tokens} new tokens, LoRA r${ours.lora_rank}, ${ours.threads} threads; ${ours.cpu}`);
console.log(`troupe: ${ours.backend} backend, bf16 products ${ours.bf16_matmul}; sampler/learner gap max ${ours.logprob_gap_max.toExponential(2)}, mean ${ours.logprob_gap_mean.toExponential(2)} (old log-probs: ${ours.old_logprobs})`);
console.log(`trl:    ${theirs.backend}`);
console.log(`${'figure'.padEnd(14)} ${'troupe'.padStart(9)} ${'trl'.padStart(9)}  trl / troupe`);
for (const key of ['rollout_s', 'update_s', 'step_s', 'peak_rss_mb']) {
  console.log(`${key.padEnd(14)} ${ours[key].toFixed(1).padStart(9)} ${theirs[key].toFixed(1).padStart(9)}  ${(theirs[key] / ours[key]).toFixed(2)}x`);
}
EOF
