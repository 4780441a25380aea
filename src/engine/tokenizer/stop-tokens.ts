/**
 * The token ids that end a generation for a model folder: `eos_token_id` of
 * generation_config.json (a number, or a list: Llama 3 Instruct stops at <|eot_id|> and
 * <|end_of_text|>, Qwen3 at <|im_end|> and <|endoftext|>) plus the tokenizer's eos. Serve and
 * the embedded policy both use it, so a chat model stops where transformers' generate stops.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { GENERATION_CONFIG_FILE, readJsonFile } from '../io/checkpoint.js';
import type { Tokenizer } from './types.js';

export { GENERATION_CONFIG_FILE };

export function loadStopTokenIds(dir: string, tokenizer: Tokenizer): number[] {
  const ids = new Set<number>();
  if (tokenizer.special.eos !== undefined) ids.add(tokenizer.special.eos);
  const path = join(dir, GENERATION_CONFIG_FILE);
  if (!existsSync(path)) return [...ids].sort((a, b) => a - b);
  const value = (readJsonFile(path) as { eos_token_id?: unknown } | null)?.eos_token_id;
  const listed = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  for (const id of listed) {
    if (!Number.isInteger(id) || (id as number) < 0) {
      throw new TroupeError('checkpoint', `${path}: eos_token_id must be a token id or a list of them, got ${JSON.stringify(value)}`);
    }
    ids.add(id as number);
  }
  return [...ids].sort((a, b) => a - b);
}
