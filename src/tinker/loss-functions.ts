/**
 * Tinker's server-side loss functions as pure functions of one datum's per-token logprobs
 * (`logprobs_T`, the model's log p(target_t | tokens_<=t)) and its loss inputs. Each returns
 * the datum's loss (a SUM over tokens, as Tinker's `loss:sum` metric), the per-token loss,
 * and d(loss)/d(logprobs_t), which the server back-propagates through the model.
 *
 *   cross_entropy        -sum_t w_t lp_t                                 {target_tokens, weights}
 *   importance_sampling  -sum_t r_t A_t, r_t = exp(lp_t - q_t)          {target_tokens, logprobs, advantages}
 *   ppo                  -sum_t min(r_t A_t, clip(r_t, lo, hi) A_t)      same, lo/hi from loss_fn_config
 *   cispo                -sum_t sg(clip(r_t, lo, hi)) A_t lp_t           same
 *
 * q_t are the sampler's logprobs of the same tokens (the behaviour policy). ppo and cispo
 * clip at `clip_low_threshold` / `clip_high_threshold` (defaults 0.8 and 1.2).
 */
import type { LossFnName } from './types.js';

export interface LossInputs {
  /** Per-token weights (cross_entropy); 1 where absent. */
  readonly weights_T?: ArrayLike<number>;
  /** Sampler logprobs q_t of the target tokens. */
  readonly samplingLogprobs_T?: ArrayLike<number>;
  readonly advantages_T?: ArrayLike<number>;
}

export interface LossResult {
  readonly loss: number;
  readonly elementwise_T: Float32Array;
  readonly dLoss_dLogprobs_T: Float32Array;
}

export type LossFn = (logprobs_T: ArrayLike<number>, inputs: LossInputs, config: Readonly<Record<string, number>>) => LossResult;

/** The loss inputs each loss needs besides target_tokens (the server checks them). */
export const LOSS_INPUTS: Record<LossFnName, readonly ('weights' | 'logprobs' | 'advantages')[]> = {
  cross_entropy: [],
  importance_sampling: ['logprobs', 'advantages'],
  ppo: ['logprobs', 'advantages'],
  cispo: ['logprobs', 'advantages'],
};

/** loss_fn_config keys each loss reads (others are refused, so a typo is not silently ignored). */
export const LOSS_CONFIG_KEYS: Record<LossFnName, readonly string[]> = {
  cross_entropy: [],
  importance_sampling: [],
  ppo: ['clip_low_threshold', 'clip_high_threshold'],
  cispo: ['clip_low_threshold', 'clip_high_threshold'],
};

function perToken(n: number, term: (t: number) => { loss: number; grad: number }): LossResult {
  const elementwise_T = new Float32Array(n);
  const dLoss_dLogprobs_T = new Float32Array(n);
  let loss = 0;
  for (let t = 0; t < n; t++) {
    const r = term(t);
    elementwise_T[t] = r.loss;
    dLoss_dLogprobs_T[t] = r.grad;
    loss += r.loss;
  }
  return { loss, elementwise_T, dLoss_dLogprobs_T };
}

function clipRange(config: Readonly<Record<string, number>>): { lo: number; hi: number } {
  return { lo: config.clip_low_threshold ?? 0.8, hi: config.clip_high_threshold ?? 1.2 };
}

const crossEntropy: LossFn = (lp, inputs) =>
  perToken(lp.length, (t) => {
    const w = inputs.weights_T?.[t] ?? 1;
    return { loss: -w * lp[t]!, grad: -w };
  });

const importanceSampling: LossFn = (lp, inputs) =>
  perToken(lp.length, (t) => {
    const a = inputs.advantages_T![t]!;
    const ratio = Math.exp(lp[t]! - inputs.samplingLogprobs_T![t]!);
    return { loss: -ratio * a, grad: -ratio * a };
  });

const ppo: LossFn = (lp, inputs, config) => {
  const { lo, hi } = clipRange(config);
  return perToken(lp.length, (t) => {
    const a = inputs.advantages_T![t]!;
    const ratio = Math.exp(lp[t]! - inputs.samplingLogprobs_T![t]!);
    const clipped = Math.min(Math.max(ratio, lo), hi);
    // The min picks the unclipped term when it is the smaller (pessimistic) one; the clipped
    // term is constant in lp where the clip is active, so it passes no gradient.
    const unclippedWins = ratio * a <= clipped * a;
    return unclippedWins ? { loss: -ratio * a, grad: -ratio * a } : { loss: -clipped * a, grad: clipped === ratio ? -ratio * a : 0 };
  });
};

const cispo: LossFn = (lp, inputs, config) => {
  const { lo, hi } = clipRange(config);
  return perToken(lp.length, (t) => {
    const a = inputs.advantages_T![t]!;
    const weight = Math.min(Math.max(Math.exp(lp[t]! - inputs.samplingLogprobs_T![t]!), lo), hi);
    return { loss: -weight * a * lp[t]!, grad: -weight * a };
  });
};

export const LOSS_FUNCTIONS: Record<LossFnName, LossFn> = {
  cross_entropy: crossEntropy,
  importance_sampling: importanceSampling,
  ppo,
  cispo,
};
