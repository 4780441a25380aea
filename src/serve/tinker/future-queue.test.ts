// FutureQueue: long polling, failures as answers, ordering by seq_id, results that expire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FutureQueue } from './future-queue.js';
import { TinkerApiError } from './tinker-api-error.js';

test('a pending future answers pending after the wait, then its value; a thrown error is a failed answer', async () => {
  const queue = new FutureQueue();
  const ok = queue.submit({}, () => 42);
  const bad = queue.submit({}, () => {
    throw new TinkerApiError(400, 'no such thing');
  });
  assert.deepEqual(await queue.retrieve(ok, 0), { state: 'pending' });
  assert.deepEqual(await queue.retrieve(ok, 1000), { state: 'done', value: 42 });
  const failed = await queue.retrieve(bad, 1000);
  assert.equal(failed?.state, 'failed');
  assert.match(failed?.state === 'failed' ? failed.error.message : '', /no such thing/);
});

test('jobs of one model run in seq_id order; a reused seq_id fails at once', async () => {
  const queue = new FutureQueue();
  const order: number[] = [];
  const ids = [3, 1, 2].map((seq) => queue.submit({ model: 'm', seqId: seq }, () => order.push(seq)));
  const reused = queue.submit({ model: 'm', seqId: 1 }, () => order.push(99));
  for (const id of ids) await queue.retrieve(id, 1000);
  assert.deepEqual(order, [1, 2, 3]);
  const answer = await queue.retrieve(reused, 0);
  assert.match(answer?.state === 'failed' ? answer.error.message : '', /seq_id 1 of model m was already used/);
});

test('a finished result is dropped after keepMs, retrieved or not', async () => {
  const queue = new FutureQueue({ keepMs: 20 });
  const id = queue.submit({}, () => 'x');
  assert.equal((await queue.retrieve(id, 1000))?.state, 'done');
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(await queue.retrieve(id, 0), undefined);
});
