#!/usr/bin/env bash
# bash experiments/default-over-seeds.sh [OUT_DIR]      (default runs/default-seeds; docs/lab/plan-path-6x6.md 1.1)
#
# The `npm start` config (examples/plan-path-train.yaml) as it is, trained once per seed, one
# seed after the other, then the per-seed table of held-out success (experiments/seed-table.ts).
# A finished seed is skipped, a stopped one continues (--resume), so the script can be re-run.
# Environment: SEEDS (default "1 2 3 4 5"), EXTRA (more --set options, e.g.
# EXTRA="--set rollout.tasks=8" for the config before session 4), TROUPE_THREADS (1 or 2).
set -euo pipefail
OUT=${1:-runs/default-seeds}
read -r -a EXTRA_SET <<< "${EXTRA:-}"
npx tsc -p .
for seed in ${SEEDS:-1 2 3 4 5}; do
  if [ -f "$OUT/seed-$seed/report.html" ]; then echo "skip seed $seed (done)"; continue; fi
  node dist/src/cli/main.js train examples/plan-path-train.yaml --run-dir "$OUT/seed-$seed" --set "seed=$seed" "${EXTRA_SET[@]}" --resume
done
npx tsx experiments/seed-table.ts "$OUT"/seed-*
