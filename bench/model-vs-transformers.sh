#!/usr/bin/env bash
# Troupe against transformers + peft on one real-model checkpoint, measured in the same run:
# `troupe bench model` and bench/transformers-model-bench.py do the same work (decode batch 1 and
# 16, prefill, LoRA training batch 4 x 256, peak RSS). transformers runs in bf16 and in float32
# (which is faster depends on the CPU: without bf16 products PyTorch emulates them); each figure
# is compared with transformers' better dtype for it, named in the table.
#
#   bash bench/model-vs-transformers.sh [FOLDER_OR_HUB_ID] [--backend native|wasm] [--rounds N]
#                                       [--dtypes "bfloat16 float32"]
#
# Without a model it makes (once) a Qwen3-0.6B-shaped checkpoint with random bf16 weights in
# .tmp/qwen3-0.6b-shape (1.2 GB): figures of speed and memory need the shape, not trained weights.
# The Python side runs in $VENV (default .venv-trl, made by bench/make-python-venv.sh when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL=""
BACKEND=auto
ROUNDS=1
DTYPES="bfloat16 float32"
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) BACKEND="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --dtypes) DTYPES="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) MODEL="$1"; shift ;;
  esac
done

VENV=$(bash bench/make-python-venv.sh "${VENV:-.venv-trl}")
if [ -z "$MODEL" ]; then
  MODEL=.tmp/qwen3-0.6b-shape
  [ -f "$MODEL/config.json" ] || "$VENV/bin/python" bench/transformers-model-bench.py --make-qwen3-0.6b "$MODEL"
fi
[ -f dist/src/cli/main.js ] || npx tsc -p tsconfig.json

OUT=.tmp/model-vs-transformers
rm -rf "$OUT" && mkdir -p "$OUT"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round: troupe bench model ($BACKEND)" >&2
  node dist/src/cli/main.js bench model "$MODEL" --backend "$BACKEND" --json > "$OUT/troupe-$round.json"
  for dtype in $DTYPES; do
    echo "round $round: transformers + peft, $dtype; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    "$VENV/bin/python" bench/transformers-model-bench.py "$MODEL" --dtype "$dtype" --json > "$OUT/transformers-$dtype-$round.json"
  done
done

node --input-type=module - "$OUT" "$ROUNDS" $DTYPES <<'EOF_JS'
import { readFileSync } from 'node:fs';
const [dir, rounds, ...dtypes] = process.argv.slice(2);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const read = (side) => Array.from({ length: Number(rounds) }, (_, i) => JSON.parse(readFileSync(`${dir}/${side}-${i + 1}.json`, 'utf8')));
const ours = read('troupe');
const theirs = Object.fromEntries(dtypes.map((dtype) => [dtype, read(`transformers-${dtype}`)]));
// Speeds: higher is better; peak memory: lower is better. The ratio is troupe / transformers either way.
const keys = [['decode_b1_tok_s', 1], ['decode_b16_tok_s', 1], ['prefill_tok_s', 1], ['lora_train_tok_s', 1], ['peak_rss_mb', -1]];
console.log(`troupe: ${ours[0].backend}    rounds: ${rounds} (medians)`);
for (const dtype of dtypes) console.log(`transformers ${dtype}: ${theirs[dtype][0].backend}`);
const header = dtypes.map((d) => `tf ${d}`.padStart(13)).join(' ');
console.log(`${'figure'.padEnd(18)} ${'troupe'.padStart(10)} ${header}  ratio to transformers' better dtype`);
for (const [key, better] of keys) {
  const a = median(ours.map((r) => r[key]));
  const values = dtypes.map((dtype) => [dtype, median(theirs[dtype].map((r) => r[key]))]);
  const [bestDtype, b] = values.reduce((x, y) => (better * (y[1] - x[1]) > 0 ? y : x));
  const cells = values.map(([, v]) => v.toFixed(1).padStart(13)).join(' ');
  console.log(`${key.padEnd(18)} ${a.toFixed(1).padStart(10)} ${cells}  ${(a / b).toFixed(2).padStart(6)}x (${bestDtype})`);
}
EOF_JS
