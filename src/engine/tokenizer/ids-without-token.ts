/**
 * The ids of a model's vocabulary that its tokenizer has no token for: the padded embedding
 * rows past the tokenizer's ids (Qwen2.5 and Qwen3 round their tables up) and any gap inside
 * them. These are the ids a sampling mask removes (src/engine/logit-mask.ts); a model whose
 * rows all have tokens, such as Troupe's character-tokenizer models, gets an empty list.
 *
 *   idsWithoutToken(qwen3Tokenizer, 151936).length;   // 267
 */
import type { Tokenizer } from './types.js';

export function idsWithoutToken(tokenizer: Tokenizer, vocabRows: number): Int32Array {
  const ids: number[] = [];
  for (let id = 0; id < vocabRows; id++) if (!tokenizer.hasToken(id)) ids.push(id);
  return Int32Array.from(ids);
}
