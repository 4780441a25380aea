/**
 * The Hugging Face `tokenizer.json` layout for a character-level vocabulary (what the HF
 * `tokenizers` library itself writes, field for field):
 *
 *   version "1.0", truncation null, padding null,
 *   added_tokens    the special tokens, each { id, content, single_word, lstrip, rstrip,
 *                   normalized, special: true }, matched in raw text before anything else
 *   normalizer      null (text is used as is)
 *   pre_tokenizer   Split on the regex [\s\S] (any one character, newlines included) with
 *                   behavior Isolated: every character becomes its own piece
 *   post_processor  null (no BOS/EOS added implicitly: Troupe adds them explicitly)
 *   decoder         Fuse: tokens are concatenated (without it HF joins tokens with spaces)
 *   model           WordLevel { vocab: token -> id, unk_token }: each piece is looked up whole
 */

/** The pre-tokenizer regex that isolates every character (`.` would skip newlines). */
export const CHAR_SPLIT_REGEX = '[\\s\\S]';

export function charTokenizerJson(tokens: readonly string[], specialIds: readonly number[], unkId: number | undefined): Record<string, unknown> {
  const vocab: Record<string, number> = {};
  tokens.forEach((token, id) => {
    vocab[token] = id;
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specialIds.map((id) => ({
      id,
      content: tokens[id],
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: { type: 'Split', pattern: { Regex: CHAR_SPLIT_REGEX }, behavior: 'Isolated', invert: false },
    post_processor: null,
    decoder: { type: 'Fuse' },
    model: { type: 'WordLevel', vocab, unk_token: unkId === undefined ? '<unk>' : tokens[unkId] },
  };
}
