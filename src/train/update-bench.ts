/**
 * Times the learner's RL update at the shape of the default learning runs (examples/
 * plan-path-10-train.yaml): a 4-layer hidden-64 character model, a KL reference, and a batch of
 * tree-sampling groups (K = 8 branches of one node share a prompt of ~110-150 characters and
 * answer with 2-3 characters). There the update is most of a step, and most of its rows are
 * prompt rows; this is what `troupe bench engine --profile` profiles.
 *
 *   const { cpuMs } = timeRlUpdate({ kernels });
 */
import { Rng } from '../util/rng.js';
import type { Kernels } from '../engine/kernels/types.js';
import { llamaConfig, type LlamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import { Learner, type TrainingSequence } from './learner.js';

/** The model of examples/plan-path-10-train.yaml (its character vocabulary is ~96 ids). */
export const RUN_MODEL: LlamaConfig = llamaConfig({ hidden: 64, layers: 4, heads: 4, intermediate: 192, vocab: 96, context: 192 });

export interface RlUpdateTiming {
  /** Process CPU time (all threads) of each timed update: on a busy machine, with one thread,
   *  close to the wall time on an idle one. */
  readonly cpuMs: readonly number[];
  readonly wallMs: readonly number[];
  /** Loss of each timed update (equal across builds that keep the float bits). */
  readonly losses: readonly number[];
  readonly tokens: number;
  readonly sequences: number;
}

/** `groups` groups of `k` sequences with random prompts and responses (seeded). */
export function runShapedBatch(options: { groups?: number; k?: number; seed?: number; vocab?: number } = {}): TrainingSequence[] {
  const { groups = 150, k = 8, seed = 3, vocab = RUN_MODEL.vocab_size } = options;
  const rng = Rng.derive(seed, 'rl-update-bench');
  const sequences: TrainingSequence[] = [];
  for (let g = 0; g < groups; g++) {
    const promptIds = Array.from({ length: 110 + rng.int(40) }, () => rng.int(vocab));
    for (let i = 0; i < k; i++) {
      const responseIds = Array.from({ length: 2 + rng.int(2) }, () => rng.int(vocab));
      sequences.push({ promptIds, responseIds, oldLogprobs: responseIds.map(() => 0), advantage: rng.int(3) - 1, group: `g${g}` });
    }
  }
  return sequences;
}

/**
 * Runs `warmup + updates` PPO-clip updates with a k3 KL to a frozen copy (kl_coef 0.05, as the
 * run) on the same batch, and times the last `updates`. `onTimed` is called before the first
 * timed one (a profile resets there).
 */
export function timeRlUpdate(options: { kernels: Kernels; config?: LlamaConfig; batch?: readonly TrainingSequence[]; updates?: number; warmup?: number; onTimed?: () => void }): RlUpdateTiming {
  const { kernels, config = RUN_MODEL, updates = 3, warmup = 1 } = options;
  const batch = options.batch ?? runShapedBatch({ vocab: config.vocab_size });
  const model = LlamaModel.create(kernels, config, { seed: 1 });
  const reference = model.clone({ trainable: false });
  const learner = new Learner({
    policyId: 'bench',
    model,
    reference: { model: reference },
    options: {
      loss: { kind: 'ppo-clip', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0.05, klEstimator: 'k3' },
      gradClip: 1,
      weightDecay: 0,
      microBatchTokens: 16384,
      // The recorded logprobs are zeros, not a sampler's: no stale-weight check.
      logprobTolerance: Number.POSITIVE_INFINITY,
    },
  });
  const cpuMs: number[] = [];
  const wallMs: number[] = [];
  const losses: number[] = [];
  let tokens = 0;
  try {
    for (let u = 0; u < warmup + updates; u++) {
      if (u === warmup) options.onTimed?.();
      const cpu = process.cpuUsage();
      const start = performance.now();
      const metrics = learner.update(batch, 1e-3);
      const used = process.cpuUsage(cpu);
      if (u < warmup) continue;
      wallMs.push(performance.now() - start);
      cpuMs.push((used.user + used.system) / 1000);
      losses.push(metrics.loss);
      tokens = metrics.tokens;
    }
  } finally {
    learner.dispose();
    reference.dispose();
    model.dispose();
  }
  return { cpuMs, wallMs, losses, tokens, sequences: batch.length };
}
