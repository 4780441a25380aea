/**
 * Policy-gradient losses over per-token log-probabilities, as pure functions.
 *
 * The learner computes the current policy's log-probability of every response token
 * (`logprobs_N`, differentiable in the engine), hands the numbers here, and gets back the loss
 * value, the gradient of the loss with respect to each token's log-probability (`dLogprobs_N`,
 * which the engine then backpropagates), and metrics. Keeping the loss outside the engine
 * means one tested place for clipping, aggregation and KL, whatever model computes logprobs.
 *
 * Tokens are flattened across the batch; `sequence_N[i]` says which response token i belongs
 * to (used by sequence-mean aggregation).
 *
 * Decoupled PPO with truncated importance sampling (TIS): when the sampler's log-probs
 * (`behaviourLogprobs_N`, the behaviour policy) may differ from the learner's own "old"
 * log-probs (`oldLogprobs_N`, the proximal policy: the learner's recomputation before the
 * update, or an older version's weights in off-policy training), the PPO ratio is taken against
 * the proximal policy and every token's policy-gradient term is multiplied by the constant
 * weight min(exp(old - behaviour), tisCap). That corrects for the tokens having been drawn from
 * the behaviour policy without letting one unlikely token dominate the batch (the cap).
 */

export type LossKind =
  /** PPO clipped surrogate (AT-GRPO, and MAGRPO's clipped variant). */
  | 'ppo-clip'
  /** -(logprob) * A with no ratio: MAGRPO's original loss (REINFORCE with a group baseline). */
  | 'reinforce';

/** token-mean: every token weighs the same; sequence-mean: every response weighs the same. */
export type LossAggregation = 'token-mean' | 'sequence-mean';

/** Estimators of KL(current || reference) from per-token logprob differences. */
export type KlEstimator = 'k1' | 'k2' | 'k3';

export interface PolicyLossOptions {
  readonly kind: LossKind;
  readonly aggregation: LossAggregation;
  /** ratio clipped to [1 - clipLow, 1 + clipHigh] (PPO: 0.2 and 0.2). */
  readonly clipLow: number;
  readonly clipHigh: number;
  /** Weight of the KL penalty; 0 disables it (and `refLogprobs_N` may be omitted). */
  readonly klCoef: number;
  readonly klEstimator: KlEstimator;
  /**
   * Cap C of the truncated importance weight min(exp(old - behaviour), C); required when the
   * input has `behaviourLogprobs_N` (e.g. 2, as in the TIS write-ups), ignored otherwise.
   */
  readonly tisCap?: number;
}

export interface PolicyLossInput {
  /** Current policy's logprob of each response token. */
  readonly logprobs_N: ArrayLike<number>;
  /** Logprob recorded when the token was sampled (the "old" policy). */
  readonly oldLogprobs_N: ArrayLike<number>;
  /** Advantage of the token (its sample's advantage, repeated over the sample's tokens). */
  readonly advantages_N: ArrayLike<number>;
  /** Index of the response each token belongs to (0..S-1). */
  readonly sequence_N: ArrayLike<number>;
  /** Reference policy logprobs, needed when klCoef > 0. */
  readonly refLogprobs_N?: ArrayLike<number>;
  /**
   * Logprob the sampler recorded for the token (the behaviour policy), when `oldLogprobs_N` is
   * the learner's own recomputation or an older version: turns on the truncated importance
   * weight (see the file comment). Omitted: the tokens count as drawn from `oldLogprobs_N`.
   */
  readonly behaviourLogprobs_N?: ArrayLike<number>;
}

export interface PolicyLossResult {
  readonly loss: number;
  /** d loss / d logprobs_N[i]. */
  readonly dLogprobs_N: Float64Array;
  /** Fraction of tokens whose ratio was clipped (the gradient was cut). */
  readonly clipFraction: number;
  /** Mean KL estimate per token (0 when no reference). */
  readonly kl: number;
  /** Mean |ratio - 1|, a cheap off-policy-ness signal. */
  readonly meanAbsRatioDeviation: number;
  /** The truncated importance weights applied; null without `behaviourLogprobs_N`. */
  readonly importance: ImportanceWeights | null;
}

/** Truncated importance weights of a batch's tokens and their summary. */
export interface ImportanceWeights {
  /** min(exp(old - behaviour), cap) per token: a constant (no gradient flows through it). */
  readonly weights_N: Float64Array;
  readonly meanWeight: number;
  readonly minWeight: number;
  readonly maxWeight: number;
  /** Fraction of tokens whose weight hit the cap. */
  readonly truncatedFraction: number;
  /** Largest and mean |old - behaviour|: the sampler/learner log-prob gap. */
  readonly maxAbsGap: number;
  readonly meanAbsGap: number;
}

/**
 * Truncated importance weights min(exp(old - behaviour), cap) of tokens drawn by a behaviour
 * policy (the sampler) for a loss taken against the proximal policy `old` (the learner).
 * Equal log-probs give a weight of exactly 1.
 *
 * @example
 * const w = truncatedImportanceWeights([-1.0, -0.5], [-1.0, -2.0], 2);
 * // w.weights_N = [1, 2] (exp(1.5) = 4.48 truncated to 2); w.truncatedFraction = 0.5; w.maxAbsGap = 1.5
 */
export function truncatedImportanceWeights(oldLogprobs_N: ArrayLike<number>, behaviourLogprobs_N: ArrayLike<number>, cap: number): ImportanceWeights {
  const n = oldLogprobs_N.length;
  if (behaviourLogprobs_N.length !== n) {
    throw new RangeError(`truncatedImportanceWeights: behaviourLogprobs_N has ${behaviourLogprobs_N.length} entries, oldLogprobs_N has ${n}`);
  }
  if (!(cap >= 1)) throw new RangeError(`truncatedImportanceWeights: the cap is ${cap}; it must be a number >= 1 (e.g. 2)`);
  const weights_N = new Float64Array(n);
  let sum = 0;
  let min = n === 0 ? 1 : Infinity;
  let max = n === 0 ? 1 : -Infinity;
  let truncated = 0;
  let maxAbsGap = 0;
  let gapSum = 0;
  for (let i = 0; i < n; i++) {
    const gap = (oldLogprobs_N[i] as number) - (behaviourLogprobs_N[i] as number);
    const raw = Math.exp(gap);
    const w = raw > cap ? cap : raw;
    if (raw > cap) truncated++;
    weights_N[i] = w;
    sum += w;
    min = Math.min(min, w);
    max = Math.max(max, w);
    maxAbsGap = Math.max(maxAbsGap, Math.abs(gap));
    gapSum += Math.abs(gap);
  }
  return {
    weights_N,
    meanWeight: n === 0 ? 1 : sum / n,
    minWeight: min,
    maxWeight: max,
    truncatedFraction: n === 0 ? 0 : truncated / n,
    maxAbsGap,
    meanAbsGap: n === 0 ? 0 : gapSum / n,
  };
}

interface KlTerm {
  value: number;
  /** d value / d logprob */
  grad: number;
}

/** Per-token KL estimate and its gradient; d = logprob - refLogprob. */
const klEstimators: Record<KlEstimator, (d: number) => KlTerm> = {
  // k1 = log(p/q): unbiased, can be negative.
  k1: (d) => ({ value: d, grad: 1 }),
  // k2 = (log(p/q))^2 / 2: low variance, biased.
  k2: (d) => ({ value: 0.5 * d * d, grad: d }),
  // k3 = q/p - 1 - log(q/p) = exp(-d) - 1 + d: unbiased and non-negative.
  k3: (d) => ({ value: Math.exp(-d) - 1 + d, grad: 1 - Math.exp(-d) }),
};

/** Per-token weights that implement the aggregation: the loss is sum_i w_i * loss_i. */
function aggregationWeights(sequence_N: ArrayLike<number>, aggregation: LossAggregation): Float64Array {
  const n = sequence_N.length;
  const weights = new Float64Array(n);
  if (n === 0) return weights;
  if (aggregation === 'token-mean') return weights.fill(1 / n);
  const tokensPerSequence = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const s = sequence_N[i] as number;
    tokensPerSequence.set(s, (tokensPerSequence.get(s) ?? 0) + 1);
  }
  const sequences = tokensPerSequence.size;
  for (let i = 0; i < n; i++) {
    weights[i] = 1 / (sequences * (tokensPerSequence.get(sequence_N[i] as number) as number));
  }
  return weights;
}

/**
 * The policy-gradient loss of a batch of tokens, its gradient per token log-prob, and metrics.
 *
 * @example
 * // On-policy PPO-clip: the ratio is 1, the loss is -mean(A).
 * policyLoss({ logprobs_N: [-1], oldLogprobs_N: [-1], advantages_N: [0.5], sequence_N: [0] }, options).loss; // -0.5
 * // Decoupled PPO: the learner's recomputation is the proximal policy, the sampler's log-probs
 * // the behaviour policy; each token's term is weighted by min(exp(old - behaviour), tisCap).
 * policyLoss({ logprobs_N, oldLogprobs_N: logprobs_N, behaviourLogprobs_N: sampled_N, advantages_N, sequence_N }, { ...options, tisCap: 2 });
 */
export function policyLoss(input: PolicyLossInput, options: PolicyLossOptions): PolicyLossResult {
  const n = input.logprobs_N.length;
  for (const [name, array] of [
    ['oldLogprobs_N', input.oldLogprobs_N],
    ['advantages_N', input.advantages_N],
    ['sequence_N', input.sequence_N],
  ] as const) {
    if (array.length !== n) throw new RangeError(`policyLoss: ${name} has ${array.length} entries, logprobs_N has ${n}`);
  }
  const useKl = options.klCoef !== 0;
  if (useKl && (input.refLogprobs_N === undefined || input.refLogprobs_N.length !== n)) {
    throw new RangeError('policyLoss: klCoef is set but refLogprobs_N is missing or of the wrong length');
  }
  let importance: ImportanceWeights | null = null;
  if (input.behaviourLogprobs_N !== undefined) {
    if (options.tisCap === undefined) throw new RangeError('policyLoss: behaviourLogprobs_N is given but options.tisCap is not set');
    importance = truncatedImportanceWeights(input.oldLogprobs_N, input.behaviourLogprobs_N, options.tisCap);
  }
  const weights = aggregationWeights(input.sequence_N, options.aggregation);
  const kl = klEstimators[options.klEstimator];
  const dLogprobs_N = new Float64Array(n);
  let loss = 0;
  let clipped = 0;
  let klSum = 0;
  let ratioDeviation = 0;
  for (let i = 0; i < n; i++) {
    const logprob = input.logprobs_N[i] as number;
    const advantage = input.advantages_N[i] as number;
    let tokenLoss: number;
    let tokenGrad: number;
    if (options.kind === 'reinforce') {
      tokenLoss = -logprob * advantage;
      tokenGrad = -advantage;
    } else {
      const ratio = Math.exp(logprob - (input.oldLogprobs_N[i] as number));
      ratioDeviation += Math.abs(ratio - 1);
      const clippedRatio = Math.min(Math.max(ratio, 1 - options.clipLow), 1 + options.clipHigh);
      const unclippedObjective = ratio * advantage;
      const clippedObjective = clippedRatio * advantage;
      // The surrogate takes the pessimistic (smaller) objective; when that is the clipped one
      // and the ratio really lies outside the band, the token contributes no gradient.
      if (clippedObjective < unclippedObjective) {
        tokenLoss = -clippedObjective;
        tokenGrad = 0;
        clipped++;
      } else {
        tokenLoss = -unclippedObjective;
        tokenGrad = -unclippedObjective; // d(-ratio * A)/d logprob = -ratio * A
      }
    }
    if (importance !== null) {
      // The weight is a constant of the batch: it scales the term and its gradient alike.
      const isWeight = importance.weights_N[i] as number;
      tokenLoss *= isWeight;
      tokenGrad *= isWeight;
    }
    if (useKl) {
      const term = kl(logprob - (input.refLogprobs_N![i] as number));
      tokenLoss += options.klCoef * term.value;
      tokenGrad += options.klCoef * term.grad;
      klSum += term.value;
    }
    const w = weights[i] as number;
    loss += w * tokenLoss;
    dLogprobs_N[i] = w * tokenGrad;
  }
  return {
    loss,
    dLogprobs_N,
    clipFraction: n === 0 ? 0 : clipped / n,
    kl: n === 0 ? 0 : klSum / n,
    meanAbsRatioDeviation: n === 0 ? 0 : ratioDeviation / n,
    importance,
  };
}
