/**
 * One token per character: the tokenizer of Troupe's built-in small models.
 *
 * Ids: the four special tokens first (<pad>=0, <bos>=1, <eos>=2, <unk>=3), then one id per
 * character. `CharTokenizer.standard()` fixes a 60-character alphabet so the whole vocabulary
 * is exactly 64 (the benchmark model's vocab):
 *
 *   "\n" and " "                     line breaks and separators
 *   0-9                              numbers, coordinates, answers
 *   A-Z                              words and moves (U/D/L/R); grid cells S G P B
 *   # . *                            grid cells: wall, free, box on goal
 *   = : , - + ( ) [ ]                arithmetic, key:value, lists
 *   @ $ / < > _ ? ! ; "              sokoban symbols, operators, punctuation
 *
 * There are no lower-case letters: compact task formats are written in upper case; any other
 * character encodes to <unk>. `CharTokenizer.fromText(text)` builds the alphabet from a text
 * instead (sorted by code point), for models trained on a given corpus.
 *
 * As in Hugging Face, the special tokens' texts are recognised inside `encode`'s input, so
 * `encode(decode(ids))` gives back `ids` for every sequence of valid ids (ids past the
 * vocabulary, a padded model's extra rows, decode to no text).
 */
import { TroupeError } from '../../util/errors.js';
import { idsWithTokens } from './check-token-ids.js';
import { charTokenizerJson } from './tokenizer-json.js';
import type { SpecialTokenIds, Tokenizer } from './types.js';

export const SPECIAL_TOKENS = ['<pad>', '<bos>', '<eos>', '<unk>'] as const;

/** The standard alphabet (60 characters; see the file comment for why each is there). */
export const STANDARD_ALPHABET = '\n 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ#.*=:,-+()[]@$/<>_?!;"';

export class CharTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly special: SpecialTokenIds;
  /** Token text by id: the special tokens, then single characters. */
  readonly tokens: readonly string[];
  private readonly idByChar: Map<string, number>;
  private readonly specialTexts: ReadonlyArray<readonly [string, number]>;

  /**
   * `tokens[id]` is the text of token `id`; entries listed in `specialTokens` are special
   * (matched as whole strings), all others must be single characters (one code point).
   */
  constructor(tokens: readonly string[], specialTokens: readonly string[] = SPECIAL_TOKENS) {
    const seen = new Set<string>();
    for (const token of tokens) {
      if (seen.has(token)) throw new TroupeError('input', `character tokenizer lists token ${JSON.stringify(token)} twice; each token must be unique`);
      seen.add(token);
      if (!specialTokens.includes(token) && [...token].length !== 1) {
        throw new TroupeError('input', `character tokenizer token ${JSON.stringify(token)} is not one character and not one of the special tokens ${specialTokens.join(', ')}`);
      }
    }
    this.tokens = [...tokens];
    this.vocabSize = tokens.length;
    const idOf = (text: string): number | undefined => {
      const id = tokens.indexOf(text);
      return id >= 0 && specialTokens.includes(text) ? id : undefined;
    };
    this.special = { pad: idOf('<pad>'), bos: idOf('<bos>'), eos: idOf('<eos>'), unk: idOf('<unk>') };
    this.idByChar = new Map();
    const specials: Array<[string, number]> = [];
    tokens.forEach((token, id) => {
      if (specialTokens.includes(token)) specials.push([token, id]);
      else this.idByChar.set(token, id);
    });
    // Longest first, so a special token that prefixes another never shadows it.
    this.specialTexts = specials.sort((a, b) => b[0].length - a[0].length);
  }

  /** The built-in vocabulary of 64 tokens (4 special + STANDARD_ALPHABET). */
  static standard(): CharTokenizer {
    return new CharTokenizer([...SPECIAL_TOKENS, ...STANDARD_ALPHABET]);
  }

  /**
   * Every printable ASCII character plus newline and tab (4 special + 97 = 101 tokens): for
   * tasks whose answers are programs or prose (code, math), which need lower case.
   */
  static ascii(): CharTokenizer {
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
    return new CharTokenizer([...SPECIAL_TOKENS, '\n', '\t', ...printable]);
  }

  /** The special tokens plus every distinct character of `text`, sorted by code point. */
  static fromText(text: string): CharTokenizer {
    const chars = [...new Set(text)].sort((a, b) => (a.codePointAt(0) as number) - (b.codePointAt(0) as number));
    return new CharTokenizer([...SPECIAL_TOKENS, ...chars.filter((c) => !(SPECIAL_TOKENS as readonly string[]).includes(c))]);
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    let i = 0;
    outer: while (i < text.length) {
      if (text.charCodeAt(i) === 0x3c /* '<' */) {
        for (const [special, id] of this.specialTexts) {
          if (text.startsWith(special, i)) {
            ids.push(id);
            i += special.length;
            continue outer;
          }
        }
      }
      const char = String.fromCodePoint(text.codePointAt(i) as number);
      const id = this.idByChar.get(char) ?? this.special.unk;
      if (id === undefined) {
        throw new TroupeError('input', `character ${JSON.stringify(char)} is not in the tokenizer's alphabet and it has no <unk> token; use a tokenizer built from your text (CharTokenizer.fromText)`);
      }
      ids.push(id);
      i += char.length;
    }
    return ids;
  }

  decode(ids: readonly number[], options: { skipSpecial?: boolean } = {}): string {
    let text = '';
    for (const id of idsWithTokens(ids, (i) => this.hasToken(i))) {
      const token = this.tokens[id]!;
      if (options.skipSpecial && !this.idByChar.has(token)) continue;
      text += token;
    }
    return text;
  }

  hasToken(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < this.tokens.length;
  }

  toTokenizerJson(): Record<string, unknown> {
    const specials = this.specialTexts.map(([, id]) => id).sort((a, b) => a - b);
    return charTokenizerJson(this.tokens, specials, this.special.unk);
  }
}
