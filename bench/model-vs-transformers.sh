#!/usr/bin/env bash
# Troupe against transformers + peft on one real-model checkpoint, measured in the same run:
# `troupe bench model` and bench/transformers-model-bench.py do the same work (decode batch 1 and
# 16, prefill, LoRA training batch 4 x 256, peak RSS); the ratios are printed at the end.
#
#   bash bench/model-vs-transformers.sh [FOLDER_OR_HUB_ID] [--backend native|wasm] [--rounds N]
#
# Without a model it makes (once) a Qwen3-0.6B-shaped checkpoint with random bf16 weights in
# .tmp/qwen3-0.6b-shape (1.2 GB): figures of speed and memory need the shape, not trained weights.
# The Python side runs in a venv made from the wheels on this machine (.tmp/bench-venv, or $VENV).
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL=""
BACKEND=auto
ROUNDS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) BACKEND="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) MODEL="$1"; shift ;;
  esac
done

VENV="${VENV:-.tmp/bench-venv}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "making the Python venv $VENV from the wheels on disk (torch, transformers, peft)" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --no-index --find-links /opt/wheels --find-links /opt/pypi/files \
    --find-links /opt/pypi-more/files "torch==2.13.0+cpu" transformers peft safetensors >&2
fi
if [ -z "$MODEL" ]; then
  MODEL=.tmp/qwen3-0.6b-shape
  [ -f "$MODEL/config.json" ] || "$VENV/bin/python" bench/transformers-model-bench.py --make-qwen3-0.6b "$MODEL"
fi
[ -f dist/src/cli/main.js ] || npx tsc -p tsconfig.json

OUT=.tmp/model-vs-transformers
mkdir -p "$OUT"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round: troupe bench model ($BACKEND)" >&2
  node dist/src/cli/main.js bench model "$MODEL" --backend "$BACKEND" --json > "$OUT/troupe-$round.json"
  echo "round $round: transformers + peft" >&2
  "$VENV/bin/python" bench/transformers-model-bench.py "$MODEL" --json > "$OUT/transformers-$round.json"
done

node --input-type=module - "$OUT" "$ROUNDS" <<'EOF'
import { readFileSync } from 'node:fs';
const [dir, rounds] = process.argv.slice(2);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const read = (side) => Array.from({ length: Number(rounds) }, (_, i) => JSON.parse(readFileSync(`${dir}/${side}-${i + 1}.json`, 'utf8')));
const ours = read('troupe');
const theirs = read('transformers');
const keys = ['decode_b1_tok_s', 'decode_b16_tok_s', 'prefill_tok_s', 'lora_train_tok_s', 'peak_rss_mb'];
console.log(`troupe: ${ours[0].backend}    reference: ${theirs[0].backend}    rounds: ${rounds} (medians)`);
console.log(`${'figure'.padEnd(18)} ${'troupe'.padStart(10)} ${'transformers'.padStart(13)} ${'ratio'.padStart(7)}`);
for (const key of keys) {
  const a = median(ours.map((r) => r[key]));
  const b = median(theirs.map((r) => r[key]));
  // For memory, lower is better: the ratio is still troupe / transformers.
  console.log(`${key.padEnd(18)} ${a.toFixed(1).padStart(10)} ${b.toFixed(1).padStart(13)} ${(a / b).toFixed(2).padStart(6)}x`);
}
EOF
