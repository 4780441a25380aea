/**
 * Reads a `tokenizer.json` into a Tokenizer:
 *
 * - the character-level layout Troupe writes (see tokenizer-json.ts: a WordLevel vocabulary
 *   whose non-special tokens are single characters, split per character) -> CharTokenizer;
 * - any other Hugging Face file (BPE, ByteLevel, Metaspace, Unigram, WordPiece, ...) ->
 *   HfTokenizer, backed by the @huggingface/tokenizers package. Its special tokens come from
 *   the tokenizer_config.json beside it, which `readTokenizer` reads when present.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cannotReadFile, TroupeError } from '../../util/errors.js';
import { CharTokenizer } from './char-tokenizer.js';
import { HfTokenizer } from './hf-tokenizer.js';
import { CHAR_SPLIT_REGEX } from './tokenizer-json.js';
import type { Tokenizer } from './types.js';

function bad(source: string, problem: string): TroupeError {
  return new TroupeError('checkpoint', `${source}: ${problem}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The file beside a tokenizer.json that names its special tokens (and holds the chat template). */
export const TOKENIZER_CONFIG_NAME = 'tokenizer_config.json';
/** The chat template in a file of its own (chat-template.ts reads it first). */
export const CHAT_TEMPLATE_FILE_NAME = 'chat_template.jinja';

/**
 * Builds a Tokenizer from parsed tokenizer.json contents; `source` names the file in errors.
 * `config` is the parsed tokenizer_config.json, used by real HF tokenizers for their special
 * tokens (Troupe's character layout marks them in tokenizer.json itself).
 */
export function tokenizerFromJson(json: unknown, source = 'tokenizer.json', config?: Record<string, unknown>): Tokenizer {
  if (!isObject(json) || !isObject(json.model)) throw bad(source, 'not a tokenizer.json object (no "model" field)');
  const model = json.model;
  const splitsChars =
    isObject(json.pre_tokenizer) &&
    json.pre_tokenizer.type === 'Split' &&
    isObject(json.pre_tokenizer.pattern) &&
    json.pre_tokenizer.pattern.Regex === CHAR_SPLIT_REGEX &&
    json.pre_tokenizer.behavior === 'Isolated';
  if (model.type !== 'WordLevel' || !splitsChars) return hfTokenizer(json, source, config);
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

function hfTokenizer(json: Record<string, unknown>, source: string, config: Record<string, unknown> | undefined): Tokenizer {
  try {
    return new HfTokenizer(json, config, source);
  } catch (error) {
    if (error instanceof TroupeError) throw error;
    const model = (json.model as { type?: unknown }).type;
    throw bad(
      source,
      `the HF tokenizers package cannot build this tokenizer (model ${JSON.stringify(model ?? null)}): ${error instanceof Error ? error.message : String(error)}. ` +
        'The file is incomplete or uses a component the package does not support; check that it is a tokenizer.json saved by the tokenizers library',
    );
  }
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw cannotReadFile(path, error);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw bad(path, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * Reads and parses a tokenizer.json file, with the tokenizer_config.json beside it if any. A
 * `chat_template.jinja` beside them (where transformers 4.43+ keeps the template) is folded
 * into the config's `chat_template`, so a checkpoint saved from this tokenizer keeps it.
 */
export function readTokenizer(path: string): Tokenizer {
  const json = readJson(path);
  const configPath = join(dirname(path), TOKENIZER_CONFIG_NAME);
  let config: Record<string, unknown> | undefined;
  if (existsSync(configPath)) {
    const parsed = readJson(configPath);
    if (!isObject(parsed)) throw bad(configPath, 'not a JSON object');
    config = parsed;
  }
  const templatePath = join(dirname(path), CHAT_TEMPLATE_FILE_NAME);
  if (existsSync(templatePath)) config = { ...config, chat_template: readFileSync(templatePath, 'utf8') };
  return tokenizerFromJson(json, path, config);
}
