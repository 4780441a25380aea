/**
 * The tokenizer of a model folder that has no tokenizer.json: it knows the vocabulary size
 * and the special ids config.json names, so token-id work (scoring `--ids`, serving prompts
 * given as ids, sampling ids) runs; anything that needs text fails with an error that says
 * which file is missing. Text is never guessed.
 *
 *   const tok = new IdsOnlyTokenizer({ vocabSize: 151936, special: { eos: 151645 }, source: 'models/x' });
 *   tok.encode('hi');   // TroupeError: models/x has no tokenizer.json ...
 */
import { TroupeError } from '../../util/errors.js';
import type { SpecialTokenIds, Tokenizer } from './types.js';

export class IdsOnlyTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly special: SpecialTokenIds;
  private readonly source: string;

  constructor(options: { vocabSize: number; special: SpecialTokenIds; source: string }) {
    this.vocabSize = options.vocabSize;
    this.special = options.special;
    this.source = options.source;
  }

  private noText(what: string): TroupeError {
    return new TroupeError('checkpoint', `${this.source} has no tokenizer.json, so it cannot ${what}; give token ids instead (e.g. --ids 1,2,3), or copy the model's tokenizer.json (and tokenizer_config.json) into the folder`);
  }

  encode(): number[] {
    throw this.noText('turn text into token ids');
  }

  decode(): string {
    throw this.noText('turn token ids into text');
  }

  /** Without a tokenizer.json every id of the model's vocabulary counts as a token. */
  hasToken(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < this.vocabSize;
  }

  toTokenizerJson(): Record<string, unknown> {
    throw this.noText('write a tokenizer.json into a saved copy');
  }
}
