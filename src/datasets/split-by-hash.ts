/**
 * Keeps the train and eval splits of a synthetic set disjoint: every possible problem belongs
 * to exactly one split by a hash of its text, and a generator draws until the problem fits
 * the requested split (half of all problems fit, so two draws on average).
 */
import { invariant } from '../util/errors.js';
import { deriveSeed, type Rng } from '../util/rng.js';
import type { Split } from '../envs/types.js';

export function splitOf(text: string): Split {
  return (deriveSeed(0, 'synthetic-split', text) & 1) === 0 ? 'train' : 'eval';
}

const MAX_DRAWS = 200;

export function drawForSplit<T>(rng: Rng, split: Split, draw: (rng: Rng) => T, text: (item: T) => string): T {
  for (let i = 0; i < MAX_DRAWS; i++) {
    const item = draw(rng);
    if (splitOf(text(item)) === split) return item;
  }
  invariant(false, `no ${split} problem in ${MAX_DRAWS} draws`);
}
