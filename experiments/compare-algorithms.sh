#!/usr/bin/env bash
# npm run experiment:algorithms [-- OUT_DIR]     (default runs/compare-algorithms; docs/lab/plan-path-6x6.md section 5)
#
# AT-GRPO vs MAGRPO vs single-agent GRPO on the same task (6x6 Plan-Path, one move an answer),
# over several seeds, then one markdown table and one SVG plot (mean and spread over seeds of
# held-out success vs RL step). Per seed, one after the other:
#   at-grpo      experiments/compare-algorithms.yaml: the tool + plan team, tree sampling
#   magrpo       examples/magrpo-train.yaml: the same team, joint actions, from AT-GRPO's base
#                (model.path: the same weights; no warm start of its own)
#   single-grpo  compare-algorithms.yaml with team.variant single and algorithm grpo (one
#                agent, K independent episodes), 6 tasks a step so its samples per step are
#                close to the team's (a lone agent answers once a turn, the team twice)
# Every setting is pinned here or in those two files (not taken from npm start's config, which
# may change): 100 RL steps each, held-out evaluation on the seed's 200 tasks every 25 steps.
# The two team methods start from the same model; the single agent (other prompts) from its own
# warm start with the same recipe (skill 0.5, 600 episodes, the seed's demonstrations). Each
# base is evaluated at step -1.
# Environment: SEEDS (default "1 2 3"); METHODS (default "at-grpo magrpo single-grpo": which
# methods to run, e.g. two copies with disjoint METHODS or SEEDS and the same OUT_DIR share the
# cores; magrpo needs its seed's at-grpo base); EXTRA (more --set options for every run, e.g. a
# smaller model for a smoke check); SVG (where the plot goes; default OUT_DIR/compare-algorithms.svg);
# TROUPE_THREADS.
set -euo pipefail
OUT_ROOT=${1:-runs/compare-algorithms}
STEPS=100
EVAL_EVERY=25
TEAM=experiments/compare-algorithms.yaml
CLI="node dist/src/cli/main.js"
npx tsc -p .
unset SEED
source "$(dirname "$0")/lib.sh"
TRAIN_SET+=(--set "train.eval_every=$EVAL_EVERY" --set "train.eval_tasks=200" --set "train.checkpoint_every=$STEPS")
runs() { [[ " ${METHODS:-at-grpo magrpo single-grpo} " == *" $1 "* ]]; }
for seed in ${SEEDS:-1 2 3}; do
  OUT="$OUT_ROOT/seed-$seed"
  if runs at-grpo; then CONFIG=$TEAM train_variant at-grpo --set "seed=$seed"; fi
  # MAGRPO starts from the very model AT-GRPO started from (its warm-started base).
  if runs magrpo; then CONFIG=examples/magrpo-train.yaml train_variant magrpo --set "seed=$seed" --set "model.path=$OUT/at-grpo/base"; fi
  if runs single-grpo; then
    CONFIG=$TEAM train_variant single-grpo --set "seed=$seed" --set algorithm=grpo --set team.variant=single --set rollout.tasks=6
  fi
done
npx tsx experiments/summarize-algorithms.ts "$OUT_ROOT" "${SVG:-$OUT_ROOT/compare-algorithms.svg}"
