#!/usr/bin/env bash
# bash experiments/role-ablation.sh [CONFIG] [OUT_DIR]
#   (defaults: examples/plan-path-train.yaml runs/exp-roles; docs/results.md section 3)
#
# Issue 4, experiment 2 (SEEDS.md's Plan-Path ablations) with one model per role
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
SEED_SET=()
if [ -n "${SEED:-}" ]; then SEED_SET=(--set "seed=$SEED"); fi
# EXTRA: more train options for every run, e.g. EXTRA="--set train.kl_coef=0" (how the
# runs of docs/results.md section 3 were made, before the config gained its KL term).
read -r -a EXTRA_SET <<< "${EXTRA:-}"
CLI="node dist/src/cli/main.js"
npx tsc -p .
run() {
  local name=$1; shift
  if [ -f "$OUT/$name/report.html" ]; then echo "skip $name (done)"; return; fi
  # Every run starts from the joint run's base: copy it so the warm start is not repeated
  # (the cache key in base/ still checks that the config asks for the same base).
  if [ "$name" != joint ] && [ ! -d "$OUT/$name/base" ]; then mkdir -p "$OUT/$name" && cp -r "$OUT/joint/base" "$OUT/$name/base"; fi
  $CLI train "$CONFIG" --run-dir "$OUT/$name" --set policy.map=per-role --set train.steps=$STEPS "${SEED_SET[@]}" "${EXTRA_SET[@]}" "$@" --resume
}
latest() { ls -d "$1"/checkpoints/*/ | tail -1; }
run joint
run tool-alone --set 'train.frozen=[plan]'
run plan-alone --set 'train.frozen=[tool]'
npx tsx experiments/summarize-runs.ts "$OUT/joint" "$OUT/tool-alone" "$OUT/plan-alone"

# Put together: tool-alone's folder with its plan policy replaced by plan-alone's.
TOGETHER="$OUT/together.tmp"
rm -rf "$TOGETHER" && cp -r "$OUT/tool-alone" "$TOGETHER"
rm -rf "$(latest "$TOGETHER")/policies/plan" && cp -r "$(latest "$OUT/plan-alone")/policies/plan" "$(latest "$TOGETHER")/policies/plan"
echo "together (tool-alone's tool + plan-alone's plan): $($CLI eval "$TOGETHER" --json)"

SWAP="$OUT/swapped.tmp"
rm -rf "$SWAP" && cp -r "$OUT/joint" "$SWAP"
L=$(latest "$SWAP")
mv "$L/policies/tool" "$L/policies/swap" && mv "$L/policies/plan" "$L/policies/tool" && mv "$L/policies/swap" "$L/policies/plan"
echo "joint, policies swapped: $($CLI eval "$SWAP" --json)"
