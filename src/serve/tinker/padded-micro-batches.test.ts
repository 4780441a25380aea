import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paddedMicroBatches } from './training-model.js';

const datum = (n: number) => ({ tokens: Array.from({ length: n }, () => 0) });

test('forward_backward micro-batches keep the request order and hold at most maxTokens once padded to their longest datum', () => {
  const datums = [4, 4, 4, 9, 2, 20, 3].map(datum);
  const batches = paddedMicroBatches(datums, 12);
  assert.deepEqual(batches.flat(), datums, 'every datum once, in order');
  assert.deepEqual(batches.map((b) => b.map((d) => d.tokens.length)), [[4, 4, 4], [9], [2], [20], [3]]);
  for (const b of batches) if (b.length > 1) assert.ok(b.length * Math.max(...b.map((d) => d.tokens.length)) <= 12);
  assert.deepEqual(paddedMicroBatches([], 12), []);
});
