// FutureQueue: long polling, failures as answers, ordering by seq_id, results that expire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FutureQueue, Stepwise } from './future-queue.js';
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

test('with coalesce, waiting jobs of one batch key run as one call and each gets its own answer; a batch that throws reruns job by job', async () => {
  const calls: number[][] = [];
  const runMany = (items: number[]) => {
    calls.push(items);
    return items.map((x) => (x < 0 ? new TinkerApiError(400, `negative ${x}`) : x * 10));
  };
  const submitAll = (queue: FutureQueue, items: number[]) => items.map((x) => queue.submit({}, () => (x < 0 ? (() => { throw new TinkerApiError(400, `alone ${x}`); })() : x), { key: 'k', item: x, runMany }));
  const queue = new FutureQueue({ coalesce: true });
  const training = queue.submit({ model: 'm', seqId: 1 }, () => 'trained');
  const ids = submitAll(queue, [1, 2, -3]);
  const answers = await Promise.all(ids.map((id) => queue.retrieve(id, 1000)));
  assert.deepEqual(calls, [[1, 2, -3]], 'the three sampling jobs ran in one call');
  assert.deepEqual(answers.slice(0, 2), [{ state: 'done', value: 10 }, { state: 'done', value: 20 }]);
  assert.match(answers[2]?.state === 'failed' ? answers[2].error.message : '', /negative -3/);
  assert.deepEqual(await queue.retrieve(training, 1000), { state: 'done', value: 'trained' });

  const throwing = new FutureQueue({ coalesce: true });
  const broken = ['a', 'b'].map((x) => throwing.submit({}, () => `${x} alone`, { key: 'k', item: x, runMany: () => { throw new Error('the batch broke'); } }));
  assert.deepEqual(await Promise.all(broken.map((id) => throwing.retrieve(id, 1000))), [{ state: 'done', value: 'a alone' }, { state: 'done', value: 'b alone' }]);

  calls.length = 0;
  const plain = new FutureQueue();
  const alone = submitAll(plain, [4, 5]);
  assert.deepEqual(await Promise.all(alone.map((id) => plain.retrieve(id, 1000))), [{ state: 'done', value: 4 }, { state: 'done', value: 5 }]);
  assert.deepEqual(calls, [], 'without coalesce every job runs alone');
});

test('a Stepwise job runs one piece per macrotask: other callbacks run between its pieces, the next job only after it', async () => {
  const queue = new FutureQueue();
  const log: string[] = [];
  function* pieces(): Generator<void, number, void> {
    for (let i = 0; i < 3; i++) {
      log.push(`piece ${i}`);
      setImmediate(() => log.push(`between ${i}`)); // what an HTTP health check would get to do
      yield;
    }
    return 7;
  }
  const long = queue.submit({ model: 'm', seqId: 1 }, () => new Stepwise(pieces(), (n) => n * 2));
  const next = queue.submit({}, () => log.push('next job'));
  assert.deepEqual(await queue.retrieve(long, 1000), { state: 'done', value: 14 });
  await queue.retrieve(next, 1000);
  assert.deepEqual(log.slice(0, 5), ['piece 0', 'between 0', 'piece 1', 'between 1', 'piece 2']);
  assert.ok(log.indexOf('next job') > log.indexOf('piece 2'), 'the next job waits for the whole of the long one');
});

test('sampling jobs that arrive during a Stepwise training job run between its pieces; training jobs wait for it', async () => {
  const queue = new FutureQueue();
  const log: string[] = [];
  let sampled: string | undefined;
  let trained: string | undefined;
  function* pieces(): Generator<void, string, void> {
    log.push('piece 0');
    sampled = queue.submit({}, () => log.push('sample'), { key: 'sample:base', item: 0, runMany: () => [] });
    trained = queue.submit({ model: 'm', seqId: 2 }, () => log.push('optim'));
    yield;
    log.push('piece 1');
    yield;
    log.push('piece 2');
    return 'done';
  }
  const long = queue.submit({ model: 'm', seqId: 1 }, () => new Stepwise(pieces(), (x) => x));
  assert.deepEqual(await queue.retrieve(long, 1000), { state: 'done', value: 'done' });
  await queue.retrieve(sampled!, 1000);
  await queue.retrieve(trained!, 1000);
  assert.deepEqual(log, ['piece 0', 'sample', 'piece 1', 'piece 2', 'optim']);
});

test('a job that fails by the server\'s fault (5xx) is reported to onServerError; a client\'s mistake (4xx) is not', async () => {
  const heard: string[] = [];
  const queue = new FutureQueue({ onServerError: (e) => heard.push(`${e.status} ${e.message}`) });
  const broken = queue.submit({}, () => {
    throw new Error('disk on fire');
  });
  const refused = queue.submit({}, () => {
    throw new TinkerApiError(400, 'bad field');
  });
  const full = queue.submit({}, () => {
    throw new TinkerApiError(507, 'the disk is full');
  });
  for (const id of [broken, refused, full]) assert.equal((await queue.retrieve(id, 1000))!.state, 'failed');
  assert.deepEqual(heard, ['500 internal error: disk on fire', '507 the disk is full']);
  const tracked = queue.track(Promise.reject(new Error('thread gone')));
  assert.equal((await queue.retrieve(tracked, 1000))!.state, 'failed');
  assert.deepEqual(heard.at(-1), '500 internal error: thread gone');
});
