/**
 * Tokenizers turn text into token ids and back. The engine, the sampler and the checkpoint
 * code only ever see this interface, so a different tokenizer family can be added later
 * without touching them:
 *
 * - `CharTokenizer` (char-tokenizer.ts): one token per character, for the built-in small
 *   models. Saved as a Hugging Face `tokenizer.json` (WordLevel model + a Split pre-tokenizer
 *   that isolates every character + a Fuse decoder), which the HF `tokenizers` library loads.
 * - `HfTokenizer` (hf-tokenizer.ts): any other Hugging Face tokenizer.json (BPE, ByteLevel,
 *   Metaspace, Unigram, WordPiece), run by the @huggingface/tokenizers package, with its
 *   special tokens from the tokenizer_config.json beside it. `tokenizerFromJson`
 *   (load-tokenizer.ts) picks the class.
 *
 * Token-in/token-out: rollouts keep the ids a policy produced and never re-tokenise text, so
 * `encode(decode(ids))` need not equal `ids` for every tokenizer (it does for CharTokenizer).
 */

/** Ids of the special tokens a tokenizer has (absent when it has none of that kind). */
export interface SpecialTokenIds {
  readonly pad?: number;
  readonly bos?: number;
  readonly eos?: number;
  /** Characters outside the vocabulary encode to this id. */
  readonly unk?: number;
}

export interface Tokenizer {
  /** Number of token ids (ids are 0 .. vocabSize-1). A model's vocab must be at least this. */
  readonly vocabSize: number;
  readonly special: SpecialTokenIds;
  /** Text to ids. Adds no BOS/EOS: callers decide (see `special`). */
  encode(text: string): number[];
  /**
   * Ids to text. Special tokens appear as their text (`<eos>`) unless `skipSpecial`, as in
   * Hugging Face's `decode`. An id the tokenizer has no token for (a padded embedding row:
   * Qwen3-0.6B has 151,936 rows for 151,669 ids) is data a model produced, not a mistake: it
   * decodes to no text. Only an id no model can produce (negative, not an integer) throws a
   * TroupeError('input').
   */
  decode(ids: readonly number[], options?: { skipSpecial?: boolean }): string;
  /** Whether `id` names a token of this tokenizer (false for padded rows and gaps in the ids). */
  hasToken(id: number): boolean;
  /** The Hugging Face `tokenizer.json` object (JSON-serialisable) describing this tokenizer. */
  toTokenizerJson(): Record<string, unknown>;
  /**
   * The tokenizer_config.json this tokenizer came with (chat_template, special tokens, ...),
   * which a saved checkpoint keeps as it is. Absent or undefined: the checkpoint writes one
   * generated from `special` (what Troupe's own tokenizers do).
   */
  tokenizerConfig?(): Record<string, unknown> | undefined;
}
