#!/usr/bin/env bash
# Makes (once) the Python venv the comparison benchmarks run their side in: torch (CPU),
# transformers, peft and TRL at the versions of bench/python-requirements.txt.
#
#   bash bench/make-python-venv.sh [VENV]      # default .venv-trl in the repository
#
# pip installs from the package index (torch's CPU wheels from download.pytorch.org). On a machine
# without network, put the wheels in folders and name them: WHEEL_DIRS="dir1 dir2" installs from
# those alone. Prints the venv's path; does nothing when its python already has all four.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${1:-.venv-trl}"
PYTHON="${PYTHON:-python3}"
# find_spec, not import: importing the four takes a minute on a busy 2-core machine.
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in ("torch", "transformers", "peft", "trl")))'; then
  echo "$VENV"
  exit 0
fi
SOURCES=(--extra-index-url https://download.pytorch.org/whl/cpu)
if [ -n "${WHEEL_DIRS:-}" ]; then
  SOURCES=(--no-index)
  for d in $WHEEL_DIRS; do SOURCES+=(--find-links "$d"); done
fi
echo "making the Python venv $VENV (torch, transformers, peft, trl; a few minutes)" >&2
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "${SOURCES[@]}" -r bench/python-requirements.txt >&2
echo "$VENV"
