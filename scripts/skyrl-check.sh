#!/usr/bin/env bash
# Troupe's Tinker route against SkyRL tx: builds SkyRL tx offline at a pinned commit, serves a
# tiny padded-vocabulary Qwen3 with it on the CPU, and runs scripts/skyrl-check.mjs (one line
# per check). Not part of `npm test` (it needs Python); run it before landing a change to
# src/tinker/, src/policy/tinker-* or src/serve/tinker/. docs/distributed.md, "SkyRL tx".
#
#   npm run build
#   scripts/skyrl-check.sh SKYRL_SOURCE TINKER_SDK_SOURCE
#
# SKYRL_SOURCE (or $SKYRL_SOURCE): a clone of github.com/NovaSky-AI/SkyRL (a work tree or a bare
# git dir): the pinned commit $SKYRL_COMMIT is exported from it with `git archive`; a plain
# source folder (no git) is used as it is. TINKER_SDK_SOURCE (or $TINKER_SDK_SOURCE): a checkout
# of github.com/thinking-machines-lab/tinker (SkyRL imports its protobuf types). Nothing is
# downloaded: every other package comes from the wheel folders on disk ($WHEEL_DIRS). The venv
# ($SKYRL_CHECK_VENV, default .cache/skyrl-venv) is built once and reused. The server runs at
# low priority on one thread; SKYRL_CHECK_ONLY=api skips the `troupe train` runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wait-for-server.sh
SKYRL=${1:-${SKYRL_SOURCE:?usage: scripts/skyrl-check.sh SKYRL_SOURCE TINKER_SDK_SOURCE}}
SDK=${2:-${TINKER_SDK_SOURCE:?usage: scripts/skyrl-check.sh SKYRL_SOURCE TINKER_SDK_SOURCE}}
# The commit this check was last passed with; move it on purpose, never silently.
SKYRL_COMMIT=${SKYRL_COMMIT:-a9564572e}
PYTHON=${PYTHON:-python3.11}
VENV=${SKYRL_CHECK_VENV:-.cache/skyrl-venv}
PORT=${PORT:-8766}
WHEEL_DIRS=${WHEEL_DIRS:-/opt/wheels /opt/pypi/files /opt/pypi-more/files}
[ -f dist/src/cli/main.js ] || { echo "build first: npm run build" >&2; exit 2; }
[ -f "$SDK/src/tinker/__init__.py" ] || { echo "$SDK has no src/tinker/__init__.py; pass a checkout of the Tinker SDK" >&2; exit 2; }

WORK=$(mktemp -d)
cleanup() { [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# SkyRL's sources at the pinned commit (only the Python package: the repository's large files
# are not needed, and may be missing from a partial clone).
if git --git-dir="$SKYRL" rev-parse --git-dir >/dev/null 2>&1 || git -C "$SKYRL" rev-parse --git-dir >/dev/null 2>&1; then
  GIT=(git --git-dir="$(git -C "$SKYRL" rev-parse --absolute-git-dir 2>/dev/null || echo "$SKYRL")")
  mkdir "$WORK/skyrl"
  "${GIT[@]}" archive "$SKYRL_COMMIT" pyproject.toml README.md skyrl | tar -x -C "$WORK/skyrl"
  echo "SkyRL $("${GIT[@]}" rev-parse "$SKYRL_COMMIT")"
else
  [ -f "$SKYRL/skyrl/tinker/api.py" ] || { echo "$SKYRL is neither a git clone of SkyRL nor a source folder with skyrl/tinker/api.py" >&2; exit 2; }
  cp -r "$SKYRL" "$WORK/skyrl"
  echo "SkyRL from the folder $SKYRL (not a git clone: commit not checked)"
fi

FIND_LINKS=(--no-index); for d in $WHEEL_DIRS; do FIND_LINKS+=(--find-links "$d"); done
PIP=(nice -n 19 "$VENV/bin/pip" install --quiet "${FIND_LINKS[@]}")
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
  # SkyRL's jax + tinker extras, minus what a CPU run never imports (ray, vLLM, postgres
  # drivers, datasets). transformers is held below 5.18, which SkyRL's Qwen3 loader predates.
  "${PIP[@]}" jax jaxlib flax optax "transformers<5.18" safetensors tokenizers huggingface_hub fastapi uvicorn sqlmodel \
    "sqlalchemy[asyncio]" aiosqlite cloudpathlib zstandard xxhash httpx h2 pydantic numpy rich typer psutil protobuf pillow \
    typing-extensions anyio distro sniffio click orjson "setuptools>=70.1" hatchling hatch-fancy-pypi-readme
fi
# The SDK and SkyRL from the given sources; their build backends are in the venv, and their
# pinned dependencies (peft, datasets, tinker<=0.24.1) are not installed: the server does not
# import them on this route.
"${PIP[@]}" --no-deps --no-build-isolation --force-reinstall "$SDK" "$WORK/skyrl"
echo "tinker SDK $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("tinker"))')"

MODEL="$WORK/tiny-qwen3"
node scripts/skyrl-check-model.mjs "$MODEL"
# One thread, lowest priority: the check must not slow down whatever else the machine runs.
export OMP_NUM_THREADS=1 JAX_PLATFORMS=cpu XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
START=$(date +%s)
(cd "$WORK" && exec nice -n 19 "$OLDPWD/$VENV/bin/python" -m skyrl.tinker.api --base-model "$MODEL" --backend jax --port "$PORT" \
  --checkpoints-base "$WORK/checkpoints" --database-url "sqlite:///$WORK/tinker.db" \
  --backend-config '{"max_lora_adapters": 16, "max_lora_rank": 8}') >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_for_server "http://127.0.0.1:$PORT/api/v1/healthz" "$SERVER_PID" "$WORK/server.log" 3000
echo "SkyRL tx up in $(( $(date +%s) - START )) s"

TINKER_API_KEY=tml-skyrl-check nice -n 19 node scripts/skyrl-check.mjs "http://127.0.0.1:$PORT" "$MODEL" || {
  status=$?; echo "--- SkyRL tx log (last 40 lines)" >&2; tail -40 "$WORK/server.log" >&2; exit $status; }
echo "total $(( $(date +%s) - START )) s"
