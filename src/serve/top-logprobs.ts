/**
 * The `top_logprobs` alternatives of each generated token. The sampler records only the
 * chosen token's logprob, so when a client asks for alternatives the server re-reads the
 * prompt and the completion in one forward pass (no gradient) and takes the k most likely
 * tokens of each position's full distribution at temperature 1: the same distribution the
 * recorded logprobs come from. Costs one forward per choice; only paid when asked for.
 * A streamed choice takes its alternatives from the logits each token was drawn from
 * (`topOfLogits`), as the token is sent.
 */
import { Tape } from '../engine/autograd/tape.js';
import type { LlamaModel } from '../engine/model/llama-model.js';

export interface TokenAlternative {
  readonly id: number;
  readonly logprob: number;
}

/** For each of `ids`, the `k` most likely tokens at its position (most likely first). */
export function topLogprobs(model: LlamaModel, options: { promptIds: readonly number[]; ids: readonly number[]; k: number; adapter?: string }): TokenAlternative[][] {
  const { promptIds, ids, k } = options;
  if (k === 0 || ids.length === 0) return ids.map(() => []);
  const tokens = [...promptIds, ...ids.slice(0, -1)];
  const tape = new Tape(model.kernels, { grad: false });
  try {
    const logits = model.forward(tape, [tokens], { adapter: options.adapter }).data; // (T, V)
    const V = model.config.vocab_size;
    return ids.map((_, i) => topOfLogits(logits.subarray((promptIds.length - 1 + i) * V, (promptIds.length + i) * V), k));
  } finally {
    tape.dispose();
  }
}

/** The `k` most likely tokens of one position's raw logits (temperature 1), most likely first. */
export function topOfLogits(row: Float32Array, k: number): TokenAlternative[] {
  const V = row.length;
  let max = -Infinity;
  for (let v = 0; v < V; v++) max = Math.max(max, row[v]!);
  let sum = 0;
  for (let v = 0; v < V; v++) sum += Math.exp(row[v]! - max);
  const logZ = max + Math.log(sum);
  const order = Array.from({ length: V }, (_, v) => v).sort((a, b) => row[b]! - row[a]! || a - b);
  return order.slice(0, Math.min(k, V)).map((id) => ({ id, logprob: row[id]! - logZ }));
}
