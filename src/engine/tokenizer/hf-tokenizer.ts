/**
 * A real Hugging Face `tokenizer.json` (BPE, ByteLevel, Metaspace, Unigram, WordPiece, ...)
 * run by the `@huggingface/tokenizers` package, a pure-JS port of the Rust library. The
 * fixtures in ./fixtures hold ids produced by the Rust implementation; the tests check this
 * class reproduces them.
 *
 *   const tok = new HfTokenizer(tokenizerJson, tokenizerConfigJson, 'models/x/tokenizer.json');
 *   tok.encode('Hello');            // no BOS/EOS: Troupe adds them explicitly (types.ts)
 *
 * Special tokens come from tokenizer_config.json (`bos_token` etc., a string or an
 * AddedToken-like `{ content }`), as transformers reads them; tokenizer.json alone does not
 * say which added token is BOS. `unk` falls back to the model's own unk token.
 *
 * Decoding follows the Rust library's `decode`: no "clean up tokenization spaces" (which
 * would turn "a ." into "a.") unless tokenizer_config.json asks for it explicitly.
 */
import { Tokenizer as HfTokenizerCore } from '@huggingface/tokenizers';
import { TroupeError } from '../../util/errors.js';
import { idsWithTokens } from './check-token-ids.js';
import type { SpecialTokenIds, Tokenizer } from './types.js';

type Json = Record<string, unknown>;

/** The model types of the Rust library; the package would guess at anything else. */
export const HF_MODEL_TYPES = ['BPE', 'Unigram', 'WordPiece', 'WordLevel'] as const;

const SPECIAL_KEYS = ['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const;

/** The text of a special-token entry of tokenizer_config.json: "<s>" or { content: "<s>" }. */
function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return undefined;
}

export class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly special: SpecialTokenIds;
  private readonly core: HfTokenizerCore;
  private readonly json: Json;
  private readonly config: Json | undefined;
  private readonly cleanUpSpaces: boolean;

  /**
   * `json` is the parsed tokenizer.json, `config` the parsed tokenizer_config.json (if any);
   * `source` names the file in errors. Both objects are copied: later changes to them do not
   * reach the tokenizer. Throws whatever the package throws for a file it cannot build
   * (tokenizerFromJson turns that into a `checkpoint` error naming the file).
   */
  constructor(json: Json, config: Json | undefined, source = 'tokenizer.json') {
    const model = (json.model ?? {}) as Json;
    if (!(HF_MODEL_TYPES as readonly unknown[]).includes(model.type)) {
      throw new TroupeError('checkpoint', `${source}: model type ${JSON.stringify(model.type ?? null)} is not one of ${HF_MODEL_TYPES.join(', ')}; check that the file is a tokenizer.json saved by the tokenizers library`);
    }
    this.json = structuredClone(json);
    this.config = config === undefined ? undefined : structuredClone(config);
    // The package may keep or adjust what it is given, so it gets its own copies. It expects
    // special tokens as strings (it looks them up as map keys), and its WordLevel support
    // takes the unk token from the config rather than from the model.
    const coreConfig: Json = structuredClone(config ?? {});
    for (const key of SPECIAL_KEYS) {
      if (coreConfig[key] !== undefined && coreConfig[key] !== null) coreConfig[key] = tokenText(coreConfig[key]);
    }
    if (model.type === 'WordLevel' && coreConfig.unk_token === undefined && typeof model.unk_token === 'string') coreConfig.unk_token = model.unk_token;
    // The Rust library always writes these keys; the package insists on them.
    const complete = { added_tokens: [], normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null, ...json };
    this.core = new HfTokenizerCore(structuredClone(complete), coreConfig);
    this.cleanUpSpaces = config?.clean_up_tokenization_spaces === true;

    let maxId = -1;
    for (const id of this.core.get_vocab(true).values()) maxId = Math.max(maxId, id);
    if (maxId < 0) throw new TroupeError('checkpoint', `${source}: the vocabulary is empty; a tokenizer needs at least one token`);
    this.vocabSize = maxId + 1;

    const lookUp = (key: 'bos_token' | 'eos_token' | 'pad_token' | 'unk_token'): number | undefined => {
      const text = tokenText(config?.[key]);
      if (text === undefined) return undefined;
      const id = this.core.token_to_id(text);
      // BOS and EOS steer generation, so a wrong one is an error; pad and unk are only hints.
      if (id === undefined && (key === 'bos_token' || key === 'eos_token')) {
        throw new TroupeError('checkpoint', `${source}: the tokenizer_config.json beside it names ${key} ${JSON.stringify(text)}, which is not a token of this tokenizer.json; fix ${key} or use the tokenizer_config.json that came with this tokenizer`);
      }
      return id;
    };
    const modelUnk =
      typeof model.unk_token === 'string' ? this.core.token_to_id(model.unk_token)
      : Number.isInteger(model.unk_id) ? (model.unk_id as number) // Unigram names its unk by id
      : undefined;
    this.special = {
      pad: lookUp('pad_token'),
      bos: lookUp('bos_token'),
      eos: lookUp('eos_token'),
      unk: lookUp('unk_token') ?? modelUnk,
    };
    // Some failures only show when text is first split (e.g. a pre-tokenizer regex the JS
    // engine rejects): find them now, while the file name is at hand.
    try {
      this.encode('Hello, world 123\n\t');
    } catch (error) {
      if (!(error instanceof TroupeError)) throw error; // a vocabulary without these letters is fine
    }
  }

  encode(text: string): number[] {
    const encoding = this.core.encode(text, { add_special_tokens: false });
    // The package gives `undefined` for a piece outside the vocabulary when there is no unk.
    const ids: Array<number | undefined> = encoding.ids;
    const missing = ids.findIndex((id) => id === undefined);
    if (missing >= 0) {
      const piece = encoding.tokens[missing];
      throw new TroupeError('input', `text piece ${JSON.stringify(piece)} is not in the tokenizer's vocabulary and the tokenizer has no unk token; only text this tokenizer covers can be encoded`);
    }
    return ids as number[];
  }

  decode(ids: readonly number[], options: { skipSpecial?: boolean } = {}): string {
    const known = idsWithTokens(ids, (id) => this.hasToken(id));
    if (known.length === 0) return ''; // the package refuses an empty list
    return this.core.decode(known, { skip_special_tokens: options.skipSpecial === true, clean_up_tokenization_spaces: this.cleanUpSpaces });
  }

  hasToken(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < this.vocabSize && this.core.id_to_token(id) !== undefined;
  }

  /** The tokenizer.json this tokenizer was built from, unchanged (a fresh copy). */
  toTokenizerJson(): Record<string, unknown> {
    return structuredClone(this.json);
  }

  /** The tokenizer_config.json it was read with (chat_template and all), or undefined. */
  tokenizerConfig(): Record<string, unknown> | undefined {
    return this.config === undefined ? undefined : structuredClone(this.config);
  }
}
