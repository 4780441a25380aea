/**
 * The text a streamed choice can send after each token, before the choice is finished.
 *
 * Text is released only once it is certain: a tail that could still grow into a stop string
 * (`stop: ["\n\n"]` and the text ends with `\n`) is held back, because a matched stop is cut
 * from the answer; so is a trailing U+FFFD, the placeholder of a character whose UTF-8 bytes
 * span tokens not all drawn yet. When the choice finishes, `finish` releases the rest of its
 * final text. The pieces concatenate to exactly the non-streamed text whenever decoding a
 * prefix of the ids gives a prefix of the text (true of Troupe's character and byte-level
 * tokenizers; the server tests check it).
 */
import type { Tokenizer } from '../engine/tokenizer/types.js';

export class LiveText {
  private readonly ids: number[] = [];
  private sent = '';

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly stops: readonly string[],
  ) {}

  /** Characters sent so far (where the next piece starts in the choice's text). */
  get offset(): number {
    return this.sent.length;
  }

  /** Adds a drawn token; returns the text that became certain ('' when nothing did). */
  push(id: number): string {
    this.ids.push(id);
    const text = this.tokenizer.decode(this.ids, { skipSpecial: true });
    const certain = text.slice(0, text.length - this.undecided(text));
    if (certain.length <= this.sent.length || !certain.startsWith(this.sent)) return '';
    const piece = certain.slice(this.sent.length);
    this.sent = certain;
    return piece;
  }

  /** The rest of the finished choice's text (Generation.text, already cut before a stop). */
  finish(text: string): string {
    const piece = text.startsWith(this.sent) ? text.slice(this.sent.length) : '';
    this.sent += piece;
    return piece;
  }

  /** Length of the tail of `text` that the next tokens may still change or cut. */
  private undecided(text: string): number {
    let hold = text.endsWith('\uFFFD') ? 1 : 0;
    for (const stop of this.stops) {
      for (let k = Math.min(stop.length - 1, text.length); k > hold; k--) {
        if (text.endsWith(stop.slice(0, k))) {
          hold = k;
          break;
        }
      }
    }
    return hold;
  }
}
