/**
 * The warm start: supervised fine-tuning of a fresh model on demonstrations (see
 * demonstrations.ts), so RL begins from a weak but not random policy. Shuffled once per
 * epoch with a seeded Rng, cut into batches of about `batchTokens` tokens, cosine schedule.
 * Between steps it yields to the event loop, so Ctrl-C is seen: `shouldStop` then ends it
 * with a WarmStartInterrupted (a warm start is not checkpointed; the caller says what is kept).
 */
import { cosineLr } from '../engine/optim/cosine-schedule.js';
import type { ScoringPair } from '../engine/model/scoring-plan.js';
import { Rng } from '../util/rng.js';
import { TroupeError } from '../util/errors.js';
import type { Learner } from './learner.js';

/** Thrown when `shouldStop` asked the warm start to end early; `step` supervised steps were done. */
export class WarmStartInterrupted extends TroupeError {
  constructor(
    readonly step: number,
    readonly steps: number,
  ) {
    super('config', `the warm start was stopped after ${step} of ${steps} steps`);
    this.name = 'WarmStartInterrupted';
  }
}

export interface WarmStartOptions {
  readonly epochs: number;
  readonly lr: number;
  readonly batchTokens: number;
  readonly warmupSteps: number;
  readonly seed: number;
  /** Asked after every step (and before the first); true ends the warm start early. */
  readonly shouldStop?: () => boolean;
}

export interface WarmStartStep {
  readonly step: number;
  readonly steps: number;
  readonly loss: number;
  readonly tokens: number;
  readonly lr: number;
}

/** Batches of about `batchTokens` (prompt + response) tokens, in the given order. */
export function tokenBatches<T extends ScoringPair>(pairs: readonly T[], batchTokens: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let tokens = 0;
  for (const pair of pairs) {
    const cost = pair.promptIds.length + pair.responseIds.length;
    if (current.length > 0 && tokens + cost > batchTokens) {
      batches.push(current);
      current = [];
      tokens = 0;
    }
    current.push(pair);
    tokens += cost;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export async function warmStart(learner: Learner, demos: readonly ScoringPair[], options: WarmStartOptions, onStep?: (step: WarmStartStep) => void): Promise<WarmStartStep[]> {
  const epochs = Array.from({ length: options.epochs }, (_, epoch) =>
    tokenBatches(Rng.derive(options.seed, 'warm-start', epoch).shuffle([...demos]), options.batchTokens),
  );
  const steps = epochs.reduce((n, batches) => n + batches.length, 0);
  const history: WarmStartStep[] = [];
  let step = 0;
  for (const batches of epochs) {
    for (const batch of batches) {
      // Let pending signals (Ctrl-C) be delivered: a step itself never yields.
      await new Promise((resolve) => setImmediate(resolve));
      if (options.shouldStop?.()) throw new WarmStartInterrupted(step, steps);
      const lr = cosineLr({ step, warmupSteps: options.warmupSteps, totalSteps: steps, maxLr: options.lr, minLr: options.lr * 0.1 });
      const metrics = learner.supervisedStep(batch, lr);
      const record = { step, steps, loss: metrics.loss, tokens: metrics.tokens, lr };
      history.push(record);
      onStep?.(record);
      step++;
    }
  }
  return history;
}
