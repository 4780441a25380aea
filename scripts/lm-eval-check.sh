#!/usr/bin/env bash
# Scores model folders with EleutherAI's lm-evaluation-harness twice, through `troupe serve`
# (lm-eval's local-completions backend) and with lm-eval's own transformers backend (hf), and
# checks that every item's log-likelihood agrees within 1e-4 and every accuracy is the same.
#
#   npx tsc -p tsconfig.json
#   scripts/lm-eval-check.sh [MODEL_FOLDER ...]
#
# MODEL_FOLDER defaults to the three transformers-made fixtures (Llama 3, Qwen2 tied, Qwen3).
# The tasks are local (no hub datasets): scripts/lm-eval-check.py writes a multiple-choice and a
# log-likelihood task in the folder's own words as YAML + JSONL. lm-eval 0.4.13 and its
# dependencies come from the wheels on disk into a venv of its own ($LM_EVAL_VENV, default
# .cache/lm-eval-venv); `evaluate`, `rouge-score`, `sqlitedict`, `word2number` and
# `pytablewriter` are not among them and no task here needs them (lm-eval prints its results
# table with pytablewriter: a stand-in writes it as plain Markdown). Exit status 0 when every
# folder passed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wait-for-server.sh
PYTHON=${PYTHON:-python3.11}
VENV=${LM_EVAL_VENV:-.cache/lm-eval-venv}
PORT=${PORT:-8766}
if [ $# -gt 0 ]; then MODELS=("$@"); else MODELS=(src/engine/io/fixtures/models/{llama3-gqa,qwen2-tied,qwen3}); fi
[ -f dist/src/cli/main.js ] || { echo "build first: npx tsc -p tsconfig.json" >&2; exit 2; }

WHEELS=(--no-index --find-links /opt/wheels --find-links /opt/pypi/files --find-links /opt/pypi-more/files)
if [ ! -x "$VENV/bin/lm_eval" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "${WHEELS[@]}" 'torch==2.13.0+cpu' transformers accelerate safetensors tokenizers datasets \
    jinja2 sacrebleu scikit-learn dill more_itertools typing_extensions tqdm requests aiohttp tenacity
  "$VENV/bin/pip" install --quiet "${WHEELS[@]}" --no-deps lm_eval==0.4.13
fi

WORK=$(mktemp -d)
SERVER_PID=
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
if ! "$VENV/bin/python" -c 'import pytablewriter' 2>/dev/null; then
  mkdir -p "$WORK/shim"
  cat >"$WORK/shim/pytablewriter.py" <<'PY'
class MarkdownTableWriter:
    headers, value_matrix = [], []

    def dumps(self):
        return '\n'.join('|' + '|'.join(map(str, row)) + '|' for row in [self.headers, *self.value_matrix])


LatexTableWriter = MarkdownTableWriter
PY
  export PYTHONPATH="$WORK/shim"
fi
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME="$WORK/hf"
TASKS=troupe_mc,troupe_ll

status=0
for MODEL in "${MODELS[@]}"; do
  MODEL=$(realpath "$MODEL")
  NAME=$(basename "$MODEL")
  OUT="$WORK/$NAME"
  # The folder's tokenizer files on their own: beside a config.json of model_type qwen2/qwen3,
  # transformers 5 swaps the fixtures' word-level tokenizer.json for its Qwen2Tokenizer class
  # (which encodes their words to nothing); alone, AutoTokenizer loads tokenizer.json as it is.
  mkdir -p "$OUT/tokenizer"
  cp "$MODEL"/tokenizer.json "$MODEL"/tokenizer_config.json "$OUT/tokenizer/"
  [ -f "$MODEL/special_tokens_map.json" ] && cp "$MODEL/special_tokens_map.json" "$OUT/tokenizer/"
  "$VENV/bin/python" scripts/lm-eval-check.py tasks "$MODEL" "$OUT/tasks" "$OUT/tokenizer" 2>"$OUT.tasks.log" || { cat "$OUT.tasks.log" >&2; exit 1; }

  node dist/src/cli/main.js serve "$MODEL" --port "$PORT" >"$OUT/server.log" 2>&1 &
  SERVER_PID=$!
  wait_for_server "http://127.0.0.1:$PORT/health" "$SERVER_PID" "$OUT/server.log" 150
  # The command a user runs against any model Troupe serves (lm-eval finds /tokenizer_info and
  # /tokenize and uses the server's tokenizer).
  "$VENV/bin/lm_eval" --model local-completions \
    --model_args "model=$NAME,base_url=http://127.0.0.1:$PORT/v1/completions,num_concurrent=1,max_retries=1" \
    --tasks "$TASKS" --include_path "$OUT/tasks" --output_path "$OUT/api" --log_samples >"$OUT/api.log" 2>&1 \
    || { tail -30 "$OUT/api.log" >&2; echo "--- server log" >&2; tail -20 "$OUT/server.log" >&2; exit 1; }
  kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=

  "$VENV/bin/lm_eval" --model hf --model_args "pretrained=$MODEL,tokenizer=$OUT/tokenizer,dtype=float32" --device cpu \
    --tasks "$TASKS" --include_path "$OUT/tasks" --output_path "$OUT/hf" --log_samples >"$OUT/hf.log" 2>&1 \
    || { tail -30 "$OUT/hf.log" >&2; exit 1; }

  echo "== $NAME: lm-eval local-completions through troupe serve"
  grep '^|' "$OUT/api.log" || true
  grep -q 'Using remote tokenizer' "$OUT/api.log" && echo "(lm-eval used the server's tokenizer: /tokenizer_info, /tokenize)"
  echo "== $NAME: lm-eval hf"
  grep '^|' "$OUT/hf.log" || true
  "$VENV/bin/python" scripts/lm-eval-check.py compare "$OUT/api" "$OUT/hf" || status=1
done
exit $status
