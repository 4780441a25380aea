/**
 * A logit mask: token ids a model must never produce, typically the padded rows of its
 * embedding table that no tokenizer id names (Qwen3-0.6B: 151,936 rows, 151,669 ids). The
 * sampler and the learner apply the same mask to the same logits, so the probability of a
 * masked id is exactly 0 in both and the remaining ids share the whole mass: the log-probs
 * recorded at sampling still equal the learner's recomputed ones.
 *
 *   const mask = idsWithoutToken(tokenizer, model.config.vocab_size);   // [151669, ..., 151935]
 *   maskLogits(logits_B_V, B, V, mask);   // those columns become MASKED_LOGIT
 */
import { TroupeError } from '../util/errors.js';

/**
 * The logit a masked id gets. Finite, so an entropy's p * log p stays 0 * (-1e30) = 0 rather
 * than 0 * -Infinity = NaN; far enough below any real logit that exp(masked - max) is exactly
 * 0 in float32 and float64 alike.
 */
export const MASKED_LOGIT = -1e30;

/** The mask as an Int32Array; an id outside 0..vocab-1 is a caller's mistake, refused here. */
export function checkedLogitMask(mask: ArrayLike<number>, vocab: number): Int32Array {
  const bad = Array.from(mask).find((id) => !Number.isInteger(id) || id < 0 || id >= vocab);
  if (bad !== undefined) throw new TroupeError('input', `logit mask id ${bad} is outside the model's vocabulary 0..${vocab - 1}; mask only ids of this model`);
  return Int32Array.from(mask);
}

/** Sets the masked columns of each of the `rows` rows of a (rows, vocab) logits array to MASKED_LOGIT. */
export function maskLogits(logits: Float32Array, rows: number, vocab: number, mask: ArrayLike<number>): void {
  if (mask.length === 0) return;
  for (let r = 0; r < rows; r++) {
    const base = r * vocab;
    for (let i = 0; i < mask.length; i++) logits[base + mask[i]!] = MASKED_LOGIT;
  }
}
