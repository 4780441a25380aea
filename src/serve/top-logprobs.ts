/**
 * The `top_logprobs` alternatives of each generated token, and the scores of an echoed
 * prompt. The sampler records only the chosen token's logprob, so when a client asks for
 * alternatives (or for the prompt's logprobs) the server re-reads the prompt and the
 * completion in one forward pass (no gradient) and takes the k most likely tokens of each
 * position's full distribution at temperature 1: the same distribution the recorded logprobs
 * come from. Costs one forward per choice; only paid when asked for.
 * A streamed choice takes its alternatives from the logits each token was drawn from
 * (`topOfLogits`), as the token is sent.
 */
import { Tape } from '../engine/autograd/tape.js';
import type { LlamaModel } from '../engine/model/llama-model.js';

export interface TokenAlternative {
  readonly id: number;
  readonly logprob: number;
}

/** One scored token: its own logprob and the `k` most likely tokens at its position. */
export interface ScoredToken {
  readonly logprob: number;
  readonly top: readonly TokenAlternative[];
}

/**
 * Scores `ids[from..]`, each token given every token before it, in one forward pass over
 * `ids` (no gradient): its logprob at temperature 1 and the `k` most likely alternatives.
 * Both come from the same row and the same normaliser, so a token that is the most likely
 * one has exactly the logprob of the first alternative (evaluation harnesses test greediness
 * with `==`). `from` >= 1: the first token has no context to be scored in.
 *
 *   scoreTokens(model, { ids: [1, 5, 9], from: 1, k: 2 })  // [{ logprob, top }, { logprob, top }] for 5 and 9
 */
export function scoreTokens(model: LlamaModel, options: { ids: readonly number[]; from: number; k: number; adapter?: string }): ScoredToken[] {
  const { ids, from, k } = options;
  if (from < 1) throw new RangeError(`scoreTokens: from must be >= 1, got ${from}`);
  if (from >= ids.length) return [];
  const tape = new Tape(model.kernels, { grad: false });
  try {
    const logits = model.forward(tape, [ids.slice(0, -1)], { adapter: options.adapter }).data; // (T - 1, V)
    const V = model.config.vocab_size;
    const scored: ScoredToken[] = [];
    for (let t = from; t < ids.length; t++) {
      const row = logits.subarray((t - 1) * V, t * V);
      const logZ = logNormaliser(row);
      scored.push({ logprob: row[ids[t]!]! - logZ, top: topOfRow(row, k, logZ) });
    }
    return scored;
  } finally {
    tape.dispose();
  }
}

/** For each of `ids`, the `k` most likely tokens at its position (most likely first). */
export function topLogprobs(model: LlamaModel, options: { promptIds: readonly number[]; ids: readonly number[]; k: number; adapter?: string }): TokenAlternative[][] {
  const { promptIds, ids, k } = options;
  if (k === 0 || ids.length === 0) return ids.map(() => []);
  return scoreTokens(model, { ids: [...promptIds, ...ids], from: promptIds.length, k, adapter: options.adapter }).map((s) => [...s.top]);
}

/** log(sum(exp(row))) in float64, shifted by the maximum. */
function logNormaliser(row: Float32Array): number {
  let max = -Infinity;
  for (let v = 0; v < row.length; v++) max = Math.max(max, row[v]!);
  let sum = 0;
  for (let v = 0; v < row.length; v++) sum += Math.exp(row[v]! - max);
  return max + Math.log(sum);
}

/** The `k` most likely tokens of one position's raw logits (temperature 1), most likely first. */
export function topOfLogits(row: Float32Array, k: number): TokenAlternative[] {
  return topOfRow(row, k, logNormaliser(row));
}

/**
 * The `k` largest entries, ties to the lower id, by one scan that keeps them sorted: O(V k)
 * at worst, not a sort of the whole vocabulary per position (151,936 entries for Qwen).
 */
function topOfRow(row: Float32Array, k: number, logZ: number): TokenAlternative[] {
  const best: number[] = [];
  const size = Math.min(k, row.length);
  for (let v = 0; v < row.length && size > 0; v++) {
    const x = row[v]!;
    if (best.length === size && !(x > row[best[size - 1]!]!)) continue;
    let at = best.length === size ? size - 1 : best.length;
    while (at > 0 && x > row[best[at - 1]!]!) at--;
    if (best.length === size) best.pop();
    best.splice(at, 0, v);
  }
  return best.map((id) => ({ id, logprob: row[id]! - logZ }));
}
