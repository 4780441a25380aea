#!/usr/bin/env bash
# bash experiments/compare-methods.sh [CONFIG] [OUT_DIR]
#   (defaults: examples/plan-path-train.yaml runs/exp-plan-path; docs/lab/plan-path-6x6.md section 3)
#
# Experiments 1 to 3 on one task: the same config trained several ways, one after
# the other (2 CPU cores: never two at once), then one table of held-out success (95% Wilson
# intervals), samples spent and wall time. Every run uses the config's seed and
# train.steps=$STEPS (default 100); only the named keys change. The step and task counts
# below are the ones docs/lab/plan-path-6x6.md reports, chosen so every variant spends about the same
# number of samples (~43-46k) on the 6x6 Plan-Path config:
#   team-at-grpo-shared     the config as is (AT-GRPO, tree sampling, one shared model)
#   team-at-grpo-per-role   policy.map: per-role (one model per role)
#   team-grpo-independent   algorithm: grpo (K independent episodes, task-level groups), 4 tasks a step
#   single-grpo             algorithm: grpo, team.variant: single, 6 tasks a step, 80 steps
#   per-role-swapped        evaluation only: the per-role run with its two policies exchanged
# Each set-up's base is its own warm-started model (eval step -1 in the table); the team
# variants share one.
# Environment: STEPS (default 100), SEED (default: the config's), EXTRA (more --set
# options), TROUPE_THREADS (1 or 2).
set -euo pipefail
CONFIG=${1:-examples/plan-path-train.yaml}
OUT=${2:-runs/exp-plan-path}
STEPS=${STEPS:-100}
CLI="node dist/src/cli/main.js"
npx tsc -p .
# Section 3's runs used K = 4 branches, the config's K until session 7 (now 8).
EXTRA="--set rollout.k=4 ${EXTRA:-}"
source "$(dirname "$0")/lib.sh"
# The team variants start from the same warm-started base.
train_variant team-at-grpo-shared
share_base team-at-grpo-shared team-at-grpo-per-role
train_variant team-at-grpo-per-role --set policy.map=per-role
share_base team-at-grpo-shared team-grpo-independent
train_variant team-grpo-independent --set algorithm=grpo --set rollout.tasks=4
train_variant single-grpo --set algorithm=grpo --set team.variant=single --set rollout.tasks=6 --set train.steps=80
npx tsx experiments/summarize-runs.ts "$OUT"/*

# The swap ablation: the per-role run with its two policies exchanged.
echo "per-role, policies swapped: $(eval_swapped "$OUT/team-at-grpo-per-role" "$OUT/per-role-swapped.tmp")"
