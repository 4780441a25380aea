import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestLimit } from './request-limit.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('RequestLimit runs at most max requests at once, the others in call order', async () => {
  const limit = new RequestLimit(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const release: Array<() => void> = [];
  const all = [0, 1, 2, 3, 4].map((i) =>
    limit.run(async () => {
      started.push(i);
      most = Math.max(most, ++running);
      await new Promise<void>((resolve) => release.push(resolve));
      running--;
      return i * 10;
    }),
  );
  await tick();
  assert.deepEqual(started, [0, 1]);
  // Finishing the second frees one slot: the third starts, not the fifth.
  release[1]!();
  await tick();
  assert.deepEqual(started, [0, 1, 2]);
  // Release every request as it starts (releasing one twice does nothing).
  while (started.length < 5 || release.length < 5) {
    for (const r of release) r();
    await tick();
  }
  for (const r of release) r();
  assert.deepEqual(await Promise.all(all), [0, 10, 20, 30, 40]);
  assert.equal(most, 2);
});

test('RequestLimit frees the slot of a failed request', async () => {
  const limit = new RequestLimit(1);
  await assert.rejects(limit.run(() => Promise.reject(new Error('refused'))), /refused/);
  assert.equal(await limit.run(async () => 'next'), 'next');
});

test('RequestLimit refuses a limit below 1', () => {
  assert.throws(() => new RequestLimit(0), /max must be an integer >= 1, got 0/);
});
