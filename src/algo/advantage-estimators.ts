/**
 * Per-group advantage estimators (SEEDS.md sections 1 and 2). Each one maps the scores of ONE
 * group (samples drawn from the same prompt, or the K episodes of one task in independent mode)
 * to one advantage per score. They are pure functions and a typed registry, so a config picks
 * one by name and a new variant is one entry, not another `if`.
 *
 * Every estimator is defined for every group size: a single-sample group and a group whose
 * scores all tie carry no comparison signal, so the centred estimators give 0 there.
 */

export type EstimatorName = 'grpo' | 'mean' | 'rloo' | 'max' | 'raw';

/** Settings an estimator may read; the others ignore them. */
export interface EstimatorOptions {
  /**
   * `grpo` divides by max(std, stdFloor) instead of std (0, the default, keeps plain GRPO). A
   * group whose scores differ by a few hundredths (two bad moves priced slightly differently)
   * then gets advantages of its size, instead of the +-1..3 that std-normalisation gives any
   * spread, however small; groups spread wider than the floor are scaled as before.
   */
  readonly stdFloor?: number;
}

/** Maps the scores of one group (`scores_G`) to advantages (`advantages_G`), same order. */
export type Estimator = (scores_G: readonly number[], options?: EstimatorOptions) => number[];

/**
 * Added to the standard deviation in `grpo` so a near-tie does not blow up into huge
 * advantages; small against reward scales of 0.01 and up.
 */
export const GRPO_STD_EPS = 1e-6;

/** True when every score is the same number: such a group carries no comparison signal. */
export function isTied(scores_G: readonly number[]): boolean {
  return scores_G.every((r) => r === scores_G[0]);
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length === 0 ? 0 : sum / values.length;
}

/** Population standard deviation (divides by G, not G - 1), as GRPO implementations do. */
function populationStd(values: readonly number[], centre: number): number {
  let sum = 0;
  for (const v of values) sum += (v - centre) * (v - centre);
  return values.length === 0 ? 0 : Math.sqrt(sum / values.length);
}

export const estimators: Record<EstimatorName, Estimator> = {
  /** (r - mean) / (max(population std, stdFloor) + eps); all-equal groups give exactly 0. */
  grpo: (scores_G, options = {}) => {
    // Tied groups return exact zeros: float rounding in the mean would otherwise leave ~1e-11.
    if (isTied(scores_G)) return scores_G.map(() => 0);
    const m = mean(scores_G);
    const std = Math.max(populationStd(scores_G, m), options.stdFloor ?? 0);
    return scores_G.map((r) => (r - m) / (std + GRPO_STD_EPS));
  },
  /** r - mean (Dr. GRPO style: centred, not scaled). */
  mean: (scores_G) => {
    if (isTied(scores_G)) return scores_G.map(() => 0);
    const m = mean(scores_G);
    return scores_G.map((r) => r - m);
  },
  /** r - mean of the OTHER samples (leave-one-out); a single-sample group has no others: 0. */
  rloo: (scores_G) => {
    const g = scores_G.length;
    if (g < 2 || isTied(scores_G)) return scores_G.map(() => 0);
    let sum = 0;
    for (const r of scores_G) sum += r;
    return scores_G.map((r) => r - (sum - r) / (g - 1));
  },
  /** r - max: the best sample gets 0, every other one a negative advantage. */
  max: (scores_G) => {
    const best = Math.max(...scores_G);
    return scores_G.map((r) => r - best);
  },
  /** r itself (REINFORCE without a baseline). */
  raw: (scores_G) => scores_G.map((r) => r),
};

export const estimatorNames = Object.keys(estimators) as EstimatorName[];
