#!/usr/bin/env bash
# TROUPE_THREADS=1 bash experiments/compare-methods-sokoban.sh [CONFIG] [OUT_DIR]
#   (defaults: examples/sokoban-train.yaml runs/exp-sokoban; docs/lab/sokoban.md)
#
# Experiment 1 on Sokoban: a copy of compare-methods.sh with Sokoban's own step and
# task counts (chosen so every variant spends about the same number of samples; the single
# agent writes one answer a turn where the team writes two, and K = 4 independent episodes
# a task where the tree spends K branches per node). One run at a time (2 shared cores):
#   team-at-grpo-shared     the config as is (AT-GRPO, tree sampling, one shared model)
#   team-at-grpo-per-role   policy.map: per-role (one model per role)
#   single-grpo             algorithm: grpo, team.variant: single ($SINGLE_TASKS tasks a step)
#   team-grpo-independent   only with INDEPENDENT=1 (experiment 3): algorithm grpo for the team
#   per-role-swapped        evaluation only: the per-role run with its two policies exchanged
# Each run's base is its own warm-started model (eval step -1 in the table).
set -euo pipefail
CONFIG=${1:-examples/sokoban-train.yaml}
OUT=${2:-runs/exp-sokoban}
STEPS=${STEPS:-100}
SINGLE_TASKS=${SINGLE_TASKS:-10}
SINGLE_STEPS=${SINGLE_STEPS:-$STEPS}
# CLI=... runs another build (e.g. a snapshot of the committed tree, so that uncommitted
# edits of others in the working tree cannot change a run half-way); default: build dist/.
if [ -z "${CLI:-}" ]; then CLI="node dist/src/cli/main.js"; npx tsc -p .; fi
source "$(dirname "$0")/lib.sh"
run() {
  if variant_done "$1"; then echo "skip $1 (done)"; return; fi
  local start=$(date +%s)
  train_variant "$@"
  echo "$1: $(( $(date +%s) - start )) s wall, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/wall.txt"
}
run team-at-grpo-shared
run single-grpo --set algorithm=grpo --set team.variant=single --set rollout.tasks=$SINGLE_TASKS --set train.steps=$SINGLE_STEPS
run team-at-grpo-per-role --set policy.map=per-role
if [ "${INDEPENDENT:-0}" = 1 ]; then run team-grpo-independent --set algorithm=grpo --set rollout.tasks=${INDEPENDENT_TASKS:-4}; fi
npx tsx experiments/summarize-runs.ts "$OUT"/*

# The swap ablation: the per-role run with its two policies exchanged.
echo "per-role, policies swapped: $(eval_swapped "$OUT/team-at-grpo-per-role" "$OUT/per-role-swapped.tmp")"
