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
# source folder (no git) is used as it is. TINKER_SDK_SOURCE (or $TINKER_SDK_SOURCE): the same
# for github.com/thinking-machines-lab/tinker at $TINKER_SDK_COMMIT (SkyRL imports its types).
# Nothing is downloaded: every other package is pinned in scripts/skyrl-requirements.txt and
# installed with --no-deps (no resolver) from the wheel folders on disk ($WHEEL_DIRS). The venv
# ($SKYRL_CHECK_VENV, default .cache/skyrl-venv) is built once and rebuilt when that file
# changes. No `uv` is needed: scripts/skyrl-uv-shim.sh stands in for the `uv run` SkyRL tx
# launches its engine with. The server runs at low priority on one thread;
# SKYRL_CHECK_ONLY=api skips the `troupe train` runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wait-for-server.sh
SKYRL=${1:-${SKYRL_SOURCE:?usage: scripts/skyrl-check.sh SKYRL_SOURCE TINKER_SDK_SOURCE}}
SDK=${2:-${TINKER_SDK_SOURCE:?usage: scripts/skyrl-check.sh SKYRL_SOURCE TINKER_SDK_SOURCE}}
# The commits this check was last passed with; move them on purpose, never silently.
SKYRL_COMMIT=${SKYRL_COMMIT:-a9564572e}
TINKER_SDK_COMMIT=${TINKER_SDK_COMMIT:-d595dc2ba} # tinker 0.25.0
PYTHON=${PYTHON:-python3.11}
VENV=$(realpath -m "${SKYRL_CHECK_VENV:-.cache/skyrl-venv}")
PORT=${PORT:-8766}
WHEEL_DIRS=${WHEEL_DIRS:-/opt/wheels /opt/pypi/files /opt/pypi-more/files}
REQUIREMENTS=scripts/skyrl-requirements.txt
[ -f dist/src/cli/main.js ] || { echo "build first: npm run build" >&2; exit 2; }
command -v "$PYTHON" >/dev/null || { echo "no $PYTHON: the wheels in $WHEEL_DIRS are for CPython 3.11; set PYTHON to one" >&2; exit 2; }

CHECK_START=$(date +%s)
since() { echo "$(( $(date +%s) - $1 )) s"; }
WORK=$(mktemp -d)
cleanup() { [ -n "${SERVER_PID:-}" ] && kill -- -"$SERVER_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# Exports SOURCE (a git clone at COMMIT, or a plain folder holding FILE) into $WORK/NAME and
# prints where it came from. Only PATHS are exported: a repository's large files are not
# needed, and may be missing from a partial clone.
export_source() {
  local name=$1 source=$2 commit=$3 file=$4; shift 4
  local gitdir
  if gitdir=$(git -C "$source" rev-parse --absolute-git-dir 2>/dev/null) || { git --git-dir="$source" rev-parse --git-dir >/dev/null 2>&1 && gitdir=$source; }; then
    mkdir "$WORK/$name"
    git --git-dir="$gitdir" archive "$commit" "$@" | tar -x -C "$WORK/$name"
    echo "$name $(git --git-dir="$gitdir" rev-parse "$commit")"
  else
    [ -f "$source/$file" ] || { echo "$source is neither a git clone of $name nor a source folder with $file" >&2; exit 2; }
    cp -r "$source" "$WORK/$name"
    echo "$name from the folder $source (not a git clone: commit not checked)"
  fi
}
export_source skyrl "$SKYRL" "$SKYRL_COMMIT" skyrl/tinker/api.py pyproject.toml README.md skyrl
export_source tinker-sdk "$SDK" "$TINKER_SDK_COMMIT" src/tinker/__init__.py pyproject.toml README.md LICENSE src

FIND_LINKS=(--no-index); for d in $WHEEL_DIRS; do FIND_LINKS+=(--find-links "$d"); done
PIP=(nice -n 19 "$VENV/bin/pip" install --quiet --disable-pip-version-check "${FIND_LINKS[@]}" --no-deps)
STAMP="$VENV/.troupe-requirements"
if ! cmp -s "$REQUIREMENTS" "$STAMP"; then
  STEP=$(date +%s)
  echo "building $VENV from $REQUIREMENTS (no resolver, --no-deps; about 2 minutes)"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "${PIP[@]}" -r "$REQUIREMENTS" || { echo "a pinned wheel is missing from $WHEEL_DIRS (pip's message above names it)" >&2; exit 2; }
  # SkyRL's skyrl/tinker/types.py puts a typing.TypedDict in a pydantic model, which pydantic
  # refuses below Python 3.12; the wheels here are for 3.11, so its venv aliases the name.
  echo 'import typing, typing_extensions; typing.TypedDict = typing_extensions.TypedDict' \
    >"$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/sitecustomize.py"
  cp "$REQUIREMENTS" "$STAMP"
  echo "venv built in $(since "$STEP")"
else
  echo "reusing $VENV (built from the current $REQUIREMENTS)"
fi
# The SDK and SkyRL from the exported sources; their build backends are in the venv, and their
# other dependencies (datasets, hf_transfer, pyqwest) are not installed: the server does not
# import them on this route.
"${PIP[@]}" --no-build-isolation --force-reinstall "$WORK/tinker-sdk" "$WORK/skyrl"
"$VENV/bin/python" -c 'import skyrl.tinker.api, skyrl.backends.jax' 2>"$WORK/import.log" || { cat "$WORK/import.log" >&2; echo "SkyRL tx does not import in $VENV; remove it to rebuild" >&2; exit 2; }
"$VENV/bin/python" -c 'import importlib.metadata as m, sys; print("Python", sys.version.split()[0], "|", ", ".join(f"{p} {m.version(p)}" for p in ["skyrl", "tinker", "jax", "flax", "optax", "transformers", "torch"]))'

MODEL="$WORK/tiny-qwen3"
node scripts/skyrl-check-model.mjs "$MODEL"
# One thread, lowest priority: the check must not slow down whatever else the machine runs.
export OMP_NUM_THREADS=1 JAX_PLATFORMS=cpu XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
SERVER_START=$(date +%s)
mkdir "$WORK/bin" && ln -s "$PWD/scripts/skyrl-uv-shim.sh" "$WORK/bin/uv"
export PATH="$WORK/bin:$PATH" SKYRL_PYTHON="$VENV/bin/python"
# Its own process group (setsid), so that cleanup ends the API server and its engine together.
(cd "$WORK" && exec setsid nice -n 19 uv run -m skyrl.tinker.api --base-model "$MODEL" --backend jax --port "$PORT" \
  --checkpoints-base "$WORK/checkpoints" --database-url "sqlite:///$WORK/tinker.db" \
  --backend-config '{"max_lora_adapters": 16, "max_lora_rank": 8}') >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_for_server "http://127.0.0.1:$PORT/api/v1/healthz" "$SERVER_PID" "$WORK/server.log" 3000
echo "SkyRL tx up in $(since "$SERVER_START")"

TINKER_API_KEY=tml-skyrl-check nice -n 19 node scripts/skyrl-check.mjs "http://127.0.0.1:$PORT" "$MODEL" || {
  status=$?; echo "--- SkyRL tx log (last 40 lines)" >&2; tail -40 "$WORK/server.log" >&2; exit $status; }
echo "checks done $(since "$SERVER_START") after SkyRL tx started; whole script $(since "$CHECK_START")"
