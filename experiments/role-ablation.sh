#!/usr/bin/env bash
# bash experiments/role-ablation.sh [CONFIG] [OUT_DIR]
#   (defaults: examples/plan-path-train.yaml runs/exp-roles; docs/lab/plan-path-6x6.md section 3)
#
# Experiment 2 (the Plan-Path role ablations) with one model per role
# (policy.map: per-role), every run from the same warm-started team base, seed from CONFIG,
# train.steps=$STEPS (default 100):
#   joint        both roles trained together (AT-GRPO)
#   tool-alone   only the tool learns; plan keeps the base weights (train.frozen: [plan])
#   plan-alone   only plan learns; the tool keeps the base weights (train.frozen: [tool])
#   together     evaluation only: tool-alone's tool with plan-alone's plan
#   swapped      evaluation only: joint's two policies exchanged
# Runs go one after the other. Environment: STEPS (default 100), SEED (default: the
# config's), EXTRA (more --set options), TROUPE_THREADS (1 or 2).
set -euo pipefail
CONFIG=${1:-examples/plan-path-train.yaml}
OUT=${2:-runs/exp-roles}
STEPS=${STEPS:-100}
CLI="node dist/src/cli/main.js"
npx tsc -p .
# Section 3's runs used K = 4 branches, the config's K until session 7 (now 8).
EXTRA="--set rollout.k=4 ${EXTRA:-}"
source "$(dirname "$0")/lib.sh"
# Every run starts from the joint run's base, so the warm start is not repeated.
run() {
  if [ "$1" != joint ]; then share_base joint "$1"; fi
  train_variant "$@" --set policy.map=per-role
}
run joint
run tool-alone --set 'train.frozen=[plan]'
run plan-alone --set 'train.frozen=[tool]'
npx tsx experiments/summarize-runs.ts "$OUT/joint" "$OUT/tool-alone" "$OUT/plan-alone"

# Put together: tool-alone's folder with its plan policy replaced by plan-alone's.
TOGETHER="$OUT/together.tmp"
rm -rf "$TOGETHER" && cp -r "$OUT/tool-alone" "$TOGETHER"
rm -rf "$(latest_checkpoint "$TOGETHER")/policies/plan" && cp -r "$(latest_checkpoint "$OUT/plan-alone")/policies/plan" "$(latest_checkpoint "$TOGETHER")/policies/plan"
echo "together (tool-alone's tool + plan-alone's plan): $($CLI eval "$TOGETHER" --json)"

echo "joint, policies swapped: $(eval_swapped "$OUT/joint" "$OUT/swapped.tmp")"
