import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { LiveText } from './live-text.js';

/**
 * A stand-in tokenizer with a two-token character: ids 5 and 6 are the two UTF-8 bytes of
 * `é`; either byte alone decodes to U+FFFD, as byte-level tokenizers do.
 */
const pieces = ['a', 'b', '\n', 'x', 'y', '<c3>', '<a9>'];
const fake = {
  decode: (ids: readonly number[]) =>
    ids
      .map((id) => pieces[id]!)
      .join('')
      .replaceAll('<c3><a9>', 'é')
      .replace(/<c3>|<a9>/g, '\uFFFD'),
} as unknown as Tokenizer;

function stream(ids: number[], stops: string[], finalText: string): string[] {
  const live = new LiveText(fake, stops);
  return [...ids.slice(0, -1).map((id) => live.push(id)), live.finish(finalText)];
}

test('each token releases its text at once when nothing can change it', () => {
  assert.deepEqual(stream([0, 1, 3, 4], [], 'abxy'), ['a', 'b', 'x', 'y']);
});

test('a tail that could start a stop string waits; a matched stop is never sent', () => {
  // stop "\n\n": the first "\n" waits for the next token, then goes out with it
  assert.deepEqual(stream([0, 2, 1, 3], ['\n\n'], 'a\nbx'), ['a', '', '\nb', 'x']);
  // the stop matches: the held "\n" belonged to it and is cut with it
  assert.deepEqual(stream([0, 2, 2], ['\n\n'], 'a'), ['a', '', '']);
  // a longer stop holds back as much of it as the text ends with
  assert.deepEqual(stream([0, 3, 4, 1, 3, 4, 2], ['xy\n'], 'axyb'), ['a', '', '', 'xyb', '', '', '']);
});

test('a character split over tokens is sent whole, once its last byte is drawn', () => {
  assert.deepEqual(stream([0, 5, 6, 1], [], 'aéb'), ['a', '', 'é', 'b']);
  assert.deepEqual(stream([0, 5, 6], [], 'aé'), ['a', '', 'é']);
});

test('the pieces always add up to the final text, and offsets follow them', () => {
  const live = new LiveText(fake, ['\n\n']);
  const sent: string[] = [];
  for (const id of [3, 2, 5, 6, 2]) {
    assert.equal(live.offset, sent.join('').length);
    sent.push(live.push(id));
  }
  sent.push(live.finish('x\né\na'));
  assert.equal(sent.join(''), 'x\né\na');
});
