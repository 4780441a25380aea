/**
 * `echo` in the completions API: the prompt comes back before the completion, and with
 * `logprobs` every prompt token carries its logprob given the tokens before it (the first,
 * which has no context, carries null) and its top alternatives. Evaluation harnesses score a
 * text this way: lm-eval's `local-completions` sends token ids with `echo: true,
 * max_tokens: 1, logprobs: 1` and sums `token_logprobs[ctxlen:-1]`, so the prompt's tokens
 * must come back exactly as sent, one entry each, and a BOS the server adds to a text prompt
 * is an entry of its own (with an empty text piece).
 *
 *   const echoed = echoPrompt(model, tokenizer, { promptIds: [1, 7, 9], generatedIds: [4], addedBos: true, k: 1 });
 *   // echoed.logprobs = [null, lp(7 | 1), lp(9 | 1 7)]; echoed.generatedTop = [top-1 at 4's position]
 */
import type { LlamaModel } from '../engine/model/llama-model.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { scoreTokens, type TokenAlternative } from './top-logprobs.js';

export interface EchoedPrompt {
  /** The text each prompt token adds; joined, the echoed prompt text. A BOS the server added is ''. */
  readonly pieces: readonly string[];
  /** Per prompt token: null for the first, then its logprob (empty when no logprobs were asked). */
  readonly logprobs: readonly (number | null)[];
  /** Per prompt token: null for the first, then its `k` most likely alternatives (empty when no logprobs were asked). */
  readonly top: readonly (readonly TokenAlternative[] | null)[];
  /** The alternatives of each generated token, from the same forward pass (undefined when no logprobs were asked). */
  readonly generatedTop?: readonly (readonly TokenAlternative[])[];
}

/**
 * The text pieces of `ids` whose concatenation is exactly `text` (the decoding of all of
 * them): each piece is what decoding one more token adds, so a token that completes a
 * multi-byte character gets the character and the tokens before it get ''.
 */
export function textPiecesOf(tokenizer: Tokenizer, ids: readonly number[], text: string, skipSpecial: boolean): string[] {
  let emitted = 0;
  return ids.map((_, i) => {
    const upTo = i === ids.length - 1 ? text : tokenizer.decode(ids.slice(0, i + 1), { skipSpecial }).slice(0, text.length);
    const piece = upTo.length > emitted ? text.slice(emitted, upTo.length) : '';
    emitted += piece.length;
    return piece;
  });
}

export function echoPrompt(
  model: LlamaModel,
  tokenizer: Tokenizer,
  options: { promptIds: readonly number[]; generatedIds: readonly number[]; addedBos: boolean; k: number | undefined; adapter?: string },
): EchoedPrompt {
  const { promptIds, generatedIds, addedBos, k } = options;
  // Special tokens the client sent are shown (it chose them); the BOS the server added is not.
  const shown = addedBos ? promptIds.slice(1) : promptIds;
  const pieces = [...(addedBos ? [''] : []), ...textPiecesOf(tokenizer, shown, tokenizer.decode(shown), false)];
  if (k === undefined) return { pieces, logprobs: [], top: [] };
  const scored = scoreTokens(model, { ids: [...promptIds, ...generatedIds], from: 1, k, adapter: options.adapter });
  const prompt = scored.slice(0, promptIds.length - 1);
  return {
    pieces,
    logprobs: [null, ...prompt.map((s) => s.logprob)],
    top: [null, ...prompt.map((s) => s.top)],
    generatedTop: scored.slice(promptIds.length - 1).map((s) => s.top),
  };
}
