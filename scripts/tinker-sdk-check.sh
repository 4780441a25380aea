#!/usr/bin/env bash
# Runs the official Tinker Python SDK against `troupe serve --tinker` and prints what passed.
#
#   npx tsc -p tsconfig.json
#   scripts/tinker-sdk-check.sh /path/to/tinker-sdk-checkout [MODEL_FOLDER]
#
# SDK: a checkout of github.com/thinking-machines-lab/tinker (0.25-era), installed from that
# source (--no-deps) into a venv of its own ($TINKER_CHECK_VENV, default
# .cache/tinker-sdk-venv) whose other packages come from the wheels on disk; pyqwest is not
# needed because the server's client config turns it off. MODEL_FOLDER defaults to a tiny random model made
# with `troupe model init`. Exit status 0 when every check passed.
set -euo pipefail
cd "$(dirname "$0")/.."
SDK=${1:?usage: scripts/tinker-sdk-check.sh SDK_CHECKOUT [MODEL_FOLDER]}
MODEL_DIR=${2:-}
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
if [ -z "$MODEL_DIR" ]; then
  MODEL_DIR="$WORK/tiny"
  node dist/src/cli/main.js model init --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 --vocab 64 --context 256 --seed 3 --out "$MODEL_DIR" >/dev/null
fi
MODEL_NAME=$(basename "$MODEL_DIR")

node dist/src/cli/main.js serve --tinker --model "$MODEL_DIR" --port "$PORT" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/api/v1/healthz" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.2
done

TINKER_BASE_URL="http://127.0.0.1:$PORT" TINKER_API_KEY=tml-local \
  "$VENV/bin/python" scripts/tinker-sdk-check.py "$MODEL_NAME" || { status=$?; echo "--- server log" >&2; tail -30 "$WORK/server.log" >&2; exit $status; }
