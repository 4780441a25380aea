#!/usr/bin/env bash
# Stands in for `uv run` when scripts/skyrl-check.sh serves SkyRL tx from a plain venv (no uv
# here: it is not in the wheel folders). SkyRL tx's API server reads its parent's command line,
# expects `uv run <flags> -m skyrl.tinker.api`, and starts its engine as `uv run <flags> --extra
# tinker --extra jax -m skyrl.tinker.engine ...`. This shim drops everything before `-m` and runs
# `$SKYRL_PYTHON -m ...` as its child, so it stays the API server's parent.
set -u
[ "${1:-}" = run ] || { echo "skyrl-uv-shim: only 'uv run ... -m MODULE ...' is supported, got: $*" >&2; exit 2; }
shift
while [ $# -gt 0 ] && [ "$1" != -m ]; do shift; done
[ $# -gt 1 ] || { echo "skyrl-uv-shim: no '-m MODULE' in the command" >&2; exit 2; }
"${SKYRL_PYTHON:?set SKYRL_PYTHON to the venv python}" "$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
wait "$child"; status=$?
# A trapped signal interrupts the first wait; wait again for the child's own exit.
kill -0 "$child" 2>/dev/null && { wait "$child"; status=$?; }
exit "$status"
