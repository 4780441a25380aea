#!/usr/bin/env bash
# npm run experiment:compare -- [CONFIG] [OUT_DIR]
#   (= bash experiments/compare-methods.sh examples/plan-path-train.yaml runs/exp-plan-path)
#
# Issue 4, experiments 1 and 3 on one task: the same config trained four ways, one after the
# other (2 CPU cores: never two at once), then one table of held-out success (95% Wilson
# intervals), samples spent and wall time. Every run uses the config's seed; only the named
# keys change:
#   team-at-grpo-shared     the config as is (AT-GRPO, tree sampling, one shared model)
#   team-at-grpo-per-role   policy.map: per-role (one model per role)
#   team-grpo-independent   algorithm: grpo (K independent episodes, task-level groups)
#   single-grpo             algorithm: grpo, team.variant: single, twice the tasks per step
#                           (one role instead of two, so about the same samples per step)
# The base policy of each run is its own warm-started model (eval step -1 in the table).
set -euo pipefail
CONFIG=${1:-examples/plan-path-train.yaml}
OUT=${2:-runs/exp-plan-path}
TASKS=$(node -e "const Y=require('yaml');const c=Y.parse(require('fs').readFileSync('$CONFIG','utf8'));console.log((c.rollout&&c.rollout.tasks)||8)")
TRAIN="node dist/src/cli/main.js train $CONFIG"
npx tsc -p .
run() { local name=$1; shift; [ -f "$OUT/$name/report.html" ] && { echo "skip $name (done)"; return; }; $TRAIN --run-dir "$OUT/$name" "$@" || $TRAIN --run-dir "$OUT/$name" --resume "$@"; }
run team-at-grpo-shared
run team-at-grpo-per-role --set policy.map=per-role
run team-grpo-independent --set algorithm=grpo
run single-grpo --set algorithm=grpo --set team.variant=single --set rollout.tasks=$((TASKS * 2))
npx tsx experiments/summarize-runs.ts "$OUT"/*
