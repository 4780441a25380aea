/**
 * Reads a `tokenizer.json` into a Tokenizer. Today that is the character-level layout Troupe
 * writes (see tokenizer-json.ts): any WordLevel vocabulary whose non-special tokens are single
 * characters, split per character. Other layouts (BPE, ByteLevel, Unigram, ...) are refused
 * with a clear error until a tokenizer backed by the HF tokenizers package is added here.
 */
import { readFileSync } from 'node:fs';
import { TroupeError } from '../../util/errors.js';
import { CharTokenizer } from './char-tokenizer.js';
import { CHAR_SPLIT_REGEX } from './tokenizer-json.js';
import type { Tokenizer } from './types.js';

function bad(source: string, problem: string): TroupeError {
  return new TroupeError('checkpoint', `${source}: ${problem}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Builds a Tokenizer from parsed tokenizer.json contents; `source` names the file in errors. */
export function tokenizerFromJson(json: unknown, source = 'tokenizer.json'): Tokenizer {
  if (!isObject(json) || !isObject(json.model)) throw bad(source, 'not a tokenizer.json object (no "model" field)');
  const model = json.model;
  const splitsChars =
    isObject(json.pre_tokenizer) &&
    json.pre_tokenizer.type === 'Split' &&
    isObject(json.pre_tokenizer.pattern) &&
    json.pre_tokenizer.pattern.Regex === CHAR_SPLIT_REGEX &&
    json.pre_tokenizer.behavior === 'Isolated';
  if (model.type !== 'WordLevel' || !splitsChars) {
    throw bad(
      source,
      `tokenizer model ${JSON.stringify(model.type)} with pre_tokenizer ${JSON.stringify((json.pre_tokenizer as { type?: unknown } | null)?.type ?? null)} is not supported yet; ` +
        'Troupe reads the character-level layout (WordLevel + Split per character) it writes itself. ' +
        'BPE/ByteLevel tokenizers need the HF tokenizers package, not available in this build',
    );
  }
  if (!isObject(model.vocab)) throw bad(source, 'model.vocab is not an object');
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(model.vocab)) {
    if (!Number.isInteger(id) || (id as number) < 0) throw bad(source, `token ${JSON.stringify(token)} has invalid id ${JSON.stringify(id)}`);
    if (tokens[id as number] !== undefined) throw bad(source, `id ${id} is used by two tokens`);
    tokens[id as number] = token;
  }
  for (let id = 0; id < tokens.length; id++) {
    if (tokens[id] === undefined) throw bad(source, `vocabulary has no token with id ${id} (ids must be 0..${tokens.length - 1} without holes)`);
  }
  const added = Array.isArray(json.added_tokens) ? json.added_tokens : [];
  const specials: string[] = [];
  for (const entry of added) {
    if (!isObject(entry) || typeof entry.content !== 'string' || !Number.isInteger(entry.id)) throw bad(source, `invalid added_tokens entry ${JSON.stringify(entry)}`);
    if (tokens[entry.id as number] !== entry.content) {
      throw bad(source, `added token ${JSON.stringify(entry.content)} has id ${entry.id} but the vocabulary gives that id to ${JSON.stringify(tokens[entry.id as number])}`);
    }
    specials.push(entry.content);
  }
  try {
    return new CharTokenizer(tokens, specials);
  } catch (error) {
    throw bad(source, error instanceof Error ? error.message : String(error));
  }
}

/** Reads and parses a tokenizer.json file. */
export function readTokenizer(path: string): Tokenizer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(error);
    throw new TroupeError('checkpoint', `cannot read ${path}: ${reason}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw bad(path, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return tokenizerFromJson(json, path);
}
