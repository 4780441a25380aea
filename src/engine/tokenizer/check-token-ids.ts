/**
 * The one id check every tokenizer's `decode` makes. A model can produce any id below its
 * number of embedding rows, and real checkpoints have more rows than tokens (Qwen3-0.6B:
 * 151,936 rows, 151,669 ids), so an id without a token is dropped from the text rather than
 * refused (token ids are the truth, text is derived from them). Only ids no model can
 * produce, negative or fractional ones, are a caller's mistake.
 */
import { TroupeError } from '../../util/errors.js';

/** The ids of `ids` that have a token (in order); throws for an id that cannot be a token id. */
export function idsWithTokens(ids: readonly number[], hasToken: (id: number) => boolean): number[] {
  const kept: number[] = [];
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0) {
      throw new TroupeError('input', `token id ${id} is not a token id (ids are integers from 0); check that the ids come from a model's output or its tokenizer`);
    }
    if (hasToken(id)) kept.push(id);
  }
  return kept;
}
