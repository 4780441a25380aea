/**
 * The datums of one policy-gradient step on a Tinker-compatible service: Troupe's loss is
 * computed here, so the service only has to backpropagate sum over tokens of w * logprob for the
 * per-token coefficients w = -d(loss)/d(logprob) (any loss, KL and clipping included). How to ask
 * for that depends on how the service reduces a datum's per-token losses:
 *
 * - `sum` (the Tinker API as documented, and `troupe serve --tinker`): `cross_entropy` with
 *   weights w; its loss sum(-w * logprob) has exactly that gradient.
 * - `mean` (SkyRL tx): each datum's loss is sum(weight * loss_t) / sum(weight), and the step
 *   averages the datums. Signed weights then divide by a sum near zero (gradients of 1e6 and
 *   more), so instead: `importance_sampling` with weight 1 on response tokens, the sampling
 *   logprobs equal to the service's forward logprobs at the current weights (ratio 1) and
 *   advantages w * n * N (n the datum's response tokens, N the datums of the step), which
 *   the service's two divisions turn back into w.
 *
 *   gradientDatums(sequences, coefficients, forwardLogprobs, 'mean')
 *   // { lossFn: 'importance_sampling', data: [...] }
 */
import type { Datum, LossFnName } from '../tinker/types.js';

export type LossReduction = 'sum' | 'mean';

export interface GradientSequence {
  readonly promptIds: readonly number[];
  readonly responseIds: readonly number[];
}

/**
 * `coefficients[b]` are w for sequence b's response tokens; `forwardLogprobs[b]` the service's
 * logprobs of every next token of prompt + response (forward_backward's output, length n - 1),
 * used only under `mean`.
 */
export function gradientDatums(
  sequences: readonly GradientSequence[],
  coefficients: readonly ArrayLike<number>[],
  forwardLogprobs: readonly ArrayLike<number>[],
  reduction: LossReduction,
): { lossFn: LossFnName; data: Datum[] } {
  const datums = sequences.length;
  const data = sequences.map((s, b): Datum => {
    const tokens = [...s.promptIds, ...s.responseIds];
    const n = tokens.length - 1;
    const first = s.promptIds.length - 1; // the position that predicts the first response token
    const targets = { dtype: 'int64' as const, shape: [n], data: tokens.slice(1) };
    const input = { chunks: [{ type: 'encoded_text' as const, tokens: tokens.slice(0, -1) }] };
    const w = coefficients[b]!;
    if (reduction === 'sum') {
      const weights = new Float32Array(n);
      weights.set(w, first);
      return { model_input: input, loss_fn_inputs: { target_tokens: targets, weights: { dtype: 'float32' as const, shape: [n], data: weights } } };
    }
    const mask = new Float32Array(n);
    const advantages = new Float32Array(n);
    const undo = s.responseIds.length * datums;
    for (let t = 0; t < s.responseIds.length; t++) {
      mask[first + t] = 1;
      advantages[first + t] = w[t]! * undo;
    }
    const logprobs = Float32Array.from(forwardLogprobs[b]!);
    return {
      model_input: input,
      loss_fn_inputs: {
        target_tokens: targets,
        weights: { dtype: 'float32' as const, shape: [n], data: mask },
        logprobs: { dtype: 'float32' as const, shape: [n], data: logprobs },
        advantages: { dtype: 'float32' as const, shape: [n], data: advantages },
      },
    };
  });
  return { lossFn: reduction === 'sum' ? 'cross_entropy' : 'importance_sampling', data };
}
