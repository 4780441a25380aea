#!/usr/bin/env bash
# One single-agent GRPO step with LoRA, Troupe against TRL's GRPOTrainer + peft, back to back on one
# machine: `troupe bench grpo-step` and bench/trl-grpo-step.py do the same work (P prompts x K
# completions x N new tokens, then one update). TRL runs once in bf16 and once in float32 (which
# is faster depends on the CPU: without bf16 products PyTorch emulates them), and Troupe is
# compared with the faster, as a user would pick it; all three are printed.
#
#   bash bench/grpo-step-vs-trl.sh [FOLDER] [--prompts 4] [--k 8] [--tokens 64] [--lora-rank 16] [--threads 2]
#                                  [--backend native|wasm] [--trl-dtypes "bfloat16 float32"]
#
# Without a folder it makes (once) a Qwen3-0.6B-shaped checkpoint with random bf16 weights and the
# real Qwen3 tokenizer in .tmp/qwen3-shape (1.2 GB, bench/make-qwen3-shape.ts). The Python side runs
# in $VENV (default .venv-trl in the repository, made by bench/make-python-venv.sh when missing).
# TRL needs ~16 GB of memory at the default shape: check `free -g` first on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL=""
BACKEND=auto
SHAPE=()
THREADS=2
TRL_DTYPES="bfloat16 float32"
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) BACKEND="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --trl-dtypes) TRL_DTYPES="$2"; shift 2 ;;
    --prompts|--k|--tokens|--lora-rank) SHAPE+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) MODEL="$1"; shift ;;
  esac
done
VENV=$(bash bench/make-python-venv.sh "${VENV:-.venv-trl}")
[ -f dist/src/cli/main.js ] || npx tsc -p tsconfig.json
if [ -z "$MODEL" ]; then
  MODEL=.tmp/qwen3-shape
  [ -f "$MODEL/model.safetensors" ] || node dist/bench/make-qwen3-shape.js "$MODEL"
fi

OUT=.tmp/grpo-step-vs-trl
rm -rf "$OUT" && mkdir -p "$OUT"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "troupe bench grpo-step ($BACKEND, $THREADS threads)" >&2
node dist/src/cli/main.js bench grpo-step "$MODEL" --backend "$BACKEND" --threads "$THREADS" "${SHAPE[@]}" --json > "$OUT/troupe.json"
for dtype in $TRL_DTYPES; do
  echo "TRL GRPOTrainer + peft, $dtype ($THREADS threads); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  # The Trainer prints its own log dict to stdout before the script's JSON: keep the last line.
  "$VENV/bin/python" bench/trl-grpo-step.py "$MODEL" --dtype "$dtype" --threads "$THREADS" "${SHAPE[@]}" --json | tail -n 1 > "$OUT/trl-$dtype.json"
done

node --input-type=module - "$OUT" $TRL_DTYPES <<'EOF_JS'
import { readFileSync } from 'node:fs';
const [dir, ...dtypes] = process.argv.slice(2);
const ours = JSON.parse(readFileSync(`${dir}/troupe.json`, 'utf8'));
const theirs = dtypes.map((dtype) => JSON.parse(readFileSync(`${dir}/trl-${dtype}.json`, 'utf8')));
// The user's best alternative: the TRL run with the shorter step.
const best = theirs.reduce((a, b) => (b.step_s < a.step_s ? b : a));
console.log(`step: ${ours.prompts} prompts x ${ours.k} completions x ${ours.new_tokens} new tokens, LoRA r${ours.lora_rank}, ${ours.threads} threads; ${ours.cpu}`);
console.log(`troupe: ${ours.backend} backend, bf16 products ${ours.bf16_matmul}; sampler/learner gap max ${ours.logprob_gap_max.toExponential(2)}, mean ${ours.logprob_gap_mean.toExponential(2)} (old log-probs: ${ours.old_logprobs})`);
for (const t of theirs) console.log(`trl ${t.dtype.padEnd(8)}: ${t.backend}${t === best ? '  <- faster step, compared below' : ''}`);
const column = (t) => `trl ${t.dtype}`.padStart(14);
console.log(`${'figure'.padEnd(14)} ${'troupe'.padStart(9)} ${theirs.map(column).join(' ')}  trl ${best.dtype} / troupe`);
for (const key of ['rollout_s', 'update_s', 'step_s', 'peak_rss_mb']) {
  const cells = theirs.map((t) => t[key].toFixed(1).padStart(14)).join(' ');
  console.log(`${key.padEnd(14)} ${ours[key].toFixed(1).padStart(9)} ${cells}  ${(best[key] / ours[key]).toFixed(2)}x`);
}
EOF_JS
