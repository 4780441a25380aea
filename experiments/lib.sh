# Shared pieces of the experiment scripts; sourced, not run. The caller sets CONFIG, OUT,
# STEPS and CLI. Environment: SEED overrides the config's seed (tasks, warm start, sampling
# all follow it); EXTRA adds --set options to every run, e.g. EXTRA="--set train.kl_coef=0"
# (how the runs of docs/lab/plan-path-6x6.md section 3 were made, before the config gained its KL term).
TRAIN_SET=()
if [ -n "${SEED:-}" ]; then TRAIN_SET+=(--set "seed=$SEED"); fi
read -r -a EXTRA_SET <<< "${EXTRA:-}"
TRAIN_SET+=("${EXTRA_SET[@]}")

variant_done() { [ -f "$OUT/$1/report.html" ]; }

# train_variant NAME [--set ...]: trains (or continues) the run folder $OUT/NAME; a finished
# run is skipped.
train_variant() {
  local name=$1; shift
  if variant_done "$name"; then echo "skip $name (done)"; return; fi
  $CLI train "$CONFIG" --run-dir "$OUT/$name" --set train.steps=$STEPS "${TRAIN_SET[@]}" "$@" --resume
}

# share_base FROM TO: runs with the same warm-start settings start from FROM's base instead of
# repeating the warm start (base/'s cache key still makes a run retrain if it asks for another).
share_base() { if [ ! -d "$OUT/$2/base" ] && [ -d "$OUT/$1/base" ]; then mkdir -p "$OUT/$2" && cp -r "$OUT/$1/base" "$OUT/$2/base"; fi; }

latest_checkpoint() { ls -d "$1"/checkpoints/*/ | tail -1; }

# eval_swapped RUN COPY: evaluates a copy of RUN whose newest checkpoint has the tool and plan
# policies exchanged (the swap ablation); prints the eval JSON.
eval_swapped() {
  rm -rf "$2" && cp -r "$1" "$2"
  local latest
  latest=$(latest_checkpoint "$2")
  mv "$latest/policies/tool" "$latest/policies/swap" && mv "$latest/policies/plan" "$latest/policies/tool" && mv "$latest/policies/swap" "$latest/policies/plan"
  $CLI eval "$2" --json
}
