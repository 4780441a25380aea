#!/usr/bin/env bash
# Runs the official Tinker Python SDK against `troupe serve --tinker` and prints what passed.
#
#   npx tsc -p tsconfig.json
#   scripts/tinker-sdk-check.sh /path/to/tinker-sdk-checkout [MODEL]
#
# SDK: a checkout of github.com/thinking-machines-lab/tinker (0.25-era), installed from that
# source (--no-deps) into a venv of its own ($TINKER_CHECK_VENV, default
# .cache/tinker-sdk-venv) whose other packages come from the wheels on disk; pyqwest is not
# needed because the server's client config turns it off. MODEL (a folder or a hub id in
# your HF cache) defaults to the tiny Qwen3 checkpoint of the engine's fixtures (made by
# transformers), placed in a temporary HF cache as Troupe/tiny-qwen3 and served from there by
# hub id. Exit status 0 when every check passed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wait-for-server.sh
SDK=${1:?usage: scripts/tinker-sdk-check.sh SDK_CHECKOUT [MODEL]}
MODEL=${2:-}
PYTHON=${PYTHON:-python3.11}
VENV=${TINKER_CHECK_VENV:-.cache/tinker-sdk-venv}
PORT=${PORT:-8765}
[ -f "$SDK/src/tinker/__init__.py" ] || { echo "$SDK has no src/tinker/__init__.py; pass a checkout of the Tinker SDK" >&2; exit 2; }
[ -f dist/src/cli/main.js ] || { echo "build first: npx tsc -p tsconfig.json" >&2; exit 2; }

WHEELS=(--no-index --find-links /opt/wheels --find-links /opt/pypi/files --find-links /opt/pypi-more/files)
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "${WHEELS[@]}" httpx h2 pydantic typing-extensions anyio distro sniffio numpy protobuf rich click orjson zstandard \
    hatchling hatch-fancy-pypi-readme
fi
# The SDK itself from the given source (its build backend is in the venv; no downloads).
"$VENV/bin/pip" install --quiet "${WHEELS[@]}" --no-deps --no-build-isolation --force-reinstall "$SDK"

WORK=$(mktemp -d)
cleanup() { [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
if [ -z "$MODEL" ]; then
  # The layout huggingface_hub writes: models--Org--Name/{snapshots/<commit>/, refs/main}.
  COMMIT=0123456789abcdef0123456789abcdef01234567
  REPO="$WORK/hf/hub/models--Troupe--tiny-qwen3"
  mkdir -p "$REPO/snapshots" "$REPO/refs"
  cp -r src/engine/io/fixtures/models/qwen3 "$REPO/snapshots/$COMMIT"
  printf %s "$COMMIT" >"$REPO/refs/main"
  export HF_HOME="$WORK/hf"
  MODEL=Troupe/tiny-qwen3
  SERVE_ARGS=()
else
  SERVE_ARGS=(--model "$MODEL")
fi
MODEL_NAME=$([ -d "$MODEL" ] && basename "$MODEL" || echo "$MODEL")
# The EOS id for the stop check: eos_token_id of the folder's config.json (a hub id: skipped).
CONFIG=$([ -d "$MODEL" ] && echo "$MODEL/config.json" || { [ -n "${REPO:-}" ] && echo "$REPO/snapshots/$COMMIT/config.json"; } || true)
EOS=$([ -n "$CONFIG" ] && "$PYTHON" -c 'import json, sys; e = json.load(open(sys.argv[1])).get("eos_token_id"); print(e[0] if isinstance(e, list) else ("" if e is None else e))' "$CONFIG" || true)

# EXTRA_SERVE_FLAGS (e.g. "--sampler-thread --batch-sampling") checks the server in another mode.
node dist/src/cli/main.js serve --tinker "${SERVE_ARGS[@]}" ${EXTRA_SERVE_FLAGS:-} --port "$PORT" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_for_server "http://127.0.0.1:$PORT/api/v1/healthz" "$SERVER_PID" "$WORK/server.log" 100

TINKER_BASE_URL="http://127.0.0.1:$PORT" TINKER_API_KEY=tml-local \
  "$VENV/bin/python" scripts/tinker-sdk-check.py "$MODEL_NAME" "$EOS" || { status=$?; echo "--- server log" >&2; tail -30 "$WORK/server.log" >&2; exit $status; }
