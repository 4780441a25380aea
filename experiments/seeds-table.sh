#!/usr/bin/env bash
# bash experiments/seeds-table.sh [OUT_DIR]            (default runs/seeds-table; docs/results.md)
#
# Every run behind the table at the top of docs/results.md: for each task (Plan-Path 10x10,
# Sokoban 6x6, Sudoku 4x4; TASKS picks), the team trained with AT-GRPO (shared model and one model per
# role), the single agent trained with GRPO, their untrained bases (each run's step -1 eval),
# MAGRPO, the swap of the trained role policies, and the grouping ablation on the 6x6 default
# recipe with LoRA per role against full fine-tuning (ABLATION=0 leaves both out).
# Then `troupe compare` over each task's runs: the markdown table (seeds grouped, 95% Wilson
# intervals, n = 200) and an HTML page of the curves ($OUT/<task>.html).
#
# Cost, measured on the 2-core development machine with two one-thread runs side by side:
# a Plan-Path 10x10 AT-GRPO run takes about 80 minutes that way (600 steps), a Sokoban one
# about 55, a single-agent
# GRPO run about 70 (200 steps), a 6x6 one about 45; the whole table is about 33 runs, some
# 20 hours at two runs at a time. PARALLEL=2 runs two at a time (each one thread); a finished run is skipped and
# a stopped one continues (--resume), so the script can be stopped and re-run.
# Environment: TASKS (default "plan-path-10 sokoban sudoku"), SEEDS (default "1 2 3"), PARALLEL (1 or 2),
# ABLATION (1, the default, or 0).
#
# The budget: the team runs the example config as shipped (600 RL steps on Plan-Path). The
# single agent plays K = 8 whole episodes per task, each prompt its own, which costs about
# four times the CPU per sample of a tree node's K branches; it runs 200 steps of 4 tasks (Sudoku: 600),
# about the CPU time of the team's 600 steps. The summary prints both runs' sample counts.
set -euo pipefail
OUT=${1:-runs/seeds-table}
SEEDS=${SEEDS:-1 2 3}
PARALLEL=${PARALLEL:-1}
CLI="node dist/src/cli/main.js"
export TROUPE_THREADS=${TROUPE_THREADS:-$(( PARALLEL > 1 ? 1 : 2 ))}
npx tsc -p .

JOBS=()
# queue NAME CONFIG [--set ...]: one run folder $OUT/NAME; finished runs are skipped.
queue() {
  local name=$1 config=$2; shift 2
  if [ -f "$OUT/$name/report.html" ]; then echo "skip $name (done)"; return; fi
  mkdir -p "$OUT/$(dirname "$name")"
  JOBS+=("$CLI train $config --run-dir $OUT/$name $* --resume > $OUT/$name.log 2>&1")
}
# MAGRPO as examples/magrpo-train.yaml plays it: per-role models, parallel roles, G = 4,
# all G^2 pairs credited, a drawn pair continues,
# from the same sequential warm start as the team.
MAGRPO="--set algorithm=magrpo --set team.order=parallel --set policy.map=per-role --set rollout.k=4 --set magrpo.joint=cross --set magrpo.expand=sampled --set warm_start.order=sequential"
SINGLE="--set algorithm=grpo --set team.variant=single --set rollout.tasks=4 --set train.eval_every=50 --set train.checkpoint_every=50"

for task in ${TASKS:-plan-path-10 sokoban sudoku}; do
  config=examples/$task-train.yaml
  for seed in $SEEDS; do
    queue "$task/at-grpo-shared-seed$seed" "$config" --set "seed=$seed" --set policy.map=shared
    queue "$task/at-grpo-per-role-seed$seed" "$config" --set "seed=$seed" --set policy.map=per-role
    # Sudoku's single-agent step is so cheap (about a fifth of the team's) that it gets the team's 600 steps.
    queue "$task/single-grpo-seed$seed" "$config" --set "seed=$seed" $SINGLE --set train.steps=$([ "$task" = sudoku ] && echo 600 || echo 200)
  done
  queue "$task/magrpo-seed1" "$config" $MAGRPO
done
# The grouping ablation, on the 6x6 default recipe where AT-GRPO learns (one model per role):
# both groupings (the default) over seeds 1-3, agent-wise only, turn-wise only and neither on seed 1.
if [ "${ABLATION:-1}" = 1 ]; then
  for seed in $SEEDS; do
    queue "plan-path-6/at-grpo-per-role-seed$seed" examples/plan-path-train.yaml --set "seed=$seed" --set policy.map=per-role
    queue "plan-path-6/lora-seed$seed" examples/plan-path-train.yaml --set "seed=$seed" --set policy.map=lora
  done
  queue plan-path-6/ablation-agent-wise-seed1 examples/plan-path-train.yaml --set seed=1 --set policy.map=per-role --set advantage.group_by=task-role
  queue plan-path-6/ablation-turn-wise-seed1 examples/plan-path-train.yaml --set seed=1 --set policy.map=per-role --set advantage.group_by=task-turn
  queue plan-path-6/ablation-no-grouping-seed1 examples/plan-path-train.yaml --set seed=1 --set policy.map=per-role --set advantage.group_by=task
fi

printf '%s\n' "${JOBS[@]}" | xargs -P "$PARALLEL" -I{} bash -c {}

source "$(dirname "$0")/lib.sh"
for task in ${TASKS:-plan-path-10 sokoban sudoku} $([ "${ABLATION:-1}" = 1 ] && echo plan-path-6); do
  $CLI compare "$OUT/$task"/*/ --out "$OUT/$task.html"
  npx tsx experiments/summarize-runs.ts "$OUT/$task"/*/
  for seed in $SEEDS; do
    if [ -d "$OUT/$task/at-grpo-per-role-seed$seed" ]; then
      echo "$task per-role seed $seed, policies swapped: $(eval_swapped "$OUT/$task/at-grpo-per-role-seed$seed" "$OUT/$task/swapped.tmp")"
    fi
  done
done
