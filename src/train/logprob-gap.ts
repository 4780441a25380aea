/**
 * The gap between the log-probs the sampler recorded and the learner's recomputation of them,
 * and what the learner makes of it.
 *
 * With the same weights the two are the same numbers up to rounding. In float32 that rounding
 * is ~1e-6, so any visible gap means the sampler used other weights (invariant 2) and the
 * sampler's log-probs can serve as PPO's "old" policy (`sampler`). A bf16 base is another
 * matter: decoding (one row against a KV cache) and the learner (whole sequences) round the
 * activations to bf16 at different points, and over a deep model the log-probs drift apart
 * (measured at Qwen3-0.6B's shape: a mean of 1.55e-3 per token, up to 6.56e-3;
 * docs/performance.md). There the learner's own recomputation is the "old" policy and the
 * sampler's log-probs only weight each token by a truncated importance ratio (`learner`,
 * decoupled PPO; src/algo/policy-loss.ts); the run stops only for a gap far above the
 * rounding one.
 */
import type { LlamaModel } from '../engine/model/llama-model.js';

/** Whose log-probs are PPO's "old" policy: the sampler's, or the learner's recomputation. */
export type OldLogprobsSource = 'sampler' | 'learner';
export type OldLogprobsSetting = OldLogprobsSource | 'auto';

/** `auto`: the learner's recomputation for a bf16 base (rounding differs), the sampler's otherwise. */
export function resolveOldLogprobs(setting: OldLogprobsSetting, model: LlamaModel): OldLogprobsSource {
  if (setting !== 'auto') return setting;
  return model.baseDtype === 'bf16' ? 'learner' : 'sampler';
}

export interface LogprobGap {
  readonly max: number;
  readonly sum: number;
  readonly count: number;
}

/** Largest and summed |recorded - recomputed| over a batch's tokens (those with only_N[i] = 1 when given). */
export function logprobGap(recomputed_N: ArrayLike<number>, recorded_N: ArrayLike<number>, only_N?: ArrayLike<number>): LogprobGap {
  let max = 0;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < recomputed_N.length; i++) {
    if (only_N !== undefined && only_N[i] !== 1) continue;
    const gap = Math.abs((recomputed_N[i] as number) - (recorded_N[i] as number));
    // NaN must not hide: it fails every later `<=` check.
    max = gap > max || Number.isNaN(gap) ? gap : max;
    sum += gap;
    count++;
  }
  return { max, sum, count };
}

/** What an update measured, as the learners report it (policy-set.ts PolicyUpdate). */
interface MeasuredGap {
  readonly max_logprob_gap?: number;
  readonly mean_logprob_gap?: number;
  readonly is_weight_mean?: number;
  readonly is_truncated_fraction?: number;
}

/** The gap fields of a policy's metrics record (none the update did not measure). */
export function gapMetrics(update: MeasuredGap): { logprob_gap_max?: number; logprob_gap_mean?: number; is_weight_mean?: number; is_truncated_fraction?: number } {
  return {
    ...(update.max_logprob_gap !== undefined ? { logprob_gap_max: update.max_logprob_gap } : {}),
    ...(update.mean_logprob_gap !== undefined ? { logprob_gap_mean: update.mean_logprob_gap } : {}),
    ...(update.is_weight_mean !== undefined ? { is_weight_mean: update.is_weight_mean } : {}),
    ...(update.is_truncated_fraction !== undefined ? { is_truncated_fraction: update.is_truncated_fraction } : {}),
  };
}

/** Truncated importance weights of an update: mean, range, fraction at the cap. */
export interface WeightSummary {
  readonly is_weight_mean: number;
  readonly is_weight_min: number;
  readonly is_weight_max: number;
  readonly is_truncated_fraction: number;
}

/** Sums of gaps and importance weights over the micro-batches of one update. */
export class GapTally {
  private max = 0;
  private sum = 0;
  private count = 0;
  private weightSum = 0;
  private weightMin = Infinity;
  private weightMax = -Infinity;
  private truncated = 0;
  private weighted = 0;

  addGap(gap: LogprobGap): void {
    this.max = gap.max > this.max || Number.isNaN(gap.max) ? gap.max : this.max;
    this.sum += gap.sum;
    this.count += gap.count;
  }

  addWeights(importance: { readonly meanWeight: number; readonly minWeight: number; readonly maxWeight: number; readonly truncatedFraction: number; readonly weights_N: ArrayLike<number> }): void {
    const n = importance.weights_N.length;
    if (n === 0) return;
    this.weightSum += importance.meanWeight * n;
    this.weightMin = Math.min(this.weightMin, importance.minWeight);
    this.weightMax = Math.max(this.weightMax, importance.maxWeight);
    this.truncated += importance.truncatedFraction * n;
    this.weighted += n;
  }

  /** The update's gap (max, mean per token) and, when tokens were weighted, their weights. */
  summary(): { max: number; mean: number; weights: WeightSummary | Record<string, never> } {
    const weights: WeightSummary | Record<string, never> =
      this.weighted === 0
        ? {}
        : { is_weight_mean: this.weightSum / this.weighted, is_weight_min: this.weightMin, is_weight_max: this.weightMax, is_truncated_fraction: this.truncated / this.weighted };
    return { max: this.max, mean: this.count === 0 ? 0 : this.sum / this.count, weights };
  }
}
