import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProgressDisplay, type ProgressStream } from './progress-display.js';
import { progressFromTrain, progressFromWarmStart } from './progress-from-records.js';
import { syntheticRecords } from '../metrics/synthetic-records.test-helper.js';
import type { EvalRecord, TrainRecord, WarmStartRecord } from '../metrics/types.js';

function fakeStream(isTTY: boolean, columns = 200): ProgressStream & { out: string } {
  return {
    out: '',
    isTTY,
    columns,
    write(text: string) {
      this.out += text;
      return true;
    },
  };
}

function fakeClock() {
  let now = 1000;
  return { clock: () => now, advance: (s: number) => (now += s * 1000) };
}

test('on a TTY each update redraws one line in place, fitted to the width', () => {
  const stream = fakeStream(true, 48);
  const time = fakeClock();
  const progress = new ProgressDisplay({ stream, total: 10, clock: time.clock });
  for (let done = 1; done <= 3; done += 1) {
    time.advance(2);
    progress.update({ done, success: 0.5, rewards: { tool: 0.1, plan: 0.2 }, samplesPerS: 3 });
  }
  assert.ok(!stream.out.includes('\n'));
  const frames = stream.out.split('\r\x1b[K').filter(Boolean);
  assert.equal(frames.length, 3);
  for (const frame of frames) assert.ok(frame.length <= 47, frame);
  // Three 2 s steps, seven left: 14 s.
  assert.match(frames[2]!, /^step 2 \(3\/10\) .*ETA 14s train success 50%/);
});

test('the ETA follows the moving average of recent steps', () => {
  const stream = fakeStream(true);
  const time = fakeClock();
  const progress = new ProgressDisplay({ stream, total: 20, clock: time.clock, window: 2 });
  const steps = [100, 1, 3];
  steps.forEach((seconds, i) => {
    time.advance(seconds);
    progress.update({ done: i + 1 });
  });
  // Last two steps average 2 s; 17 steps left.
  assert.match(stream.out.split('\r\x1b[K').at(-1)!, /ETA 34s/);
});

test('not on a TTY: a plain line for the first update, every N steps and the last', () => {
  const stream = fakeStream(false);
  const time = fakeClock();
  const progress = new ProgressDisplay({ stream, total: 7, every: 3, clock: time.clock });
  for (let done = 1; done <= 7; done += 1) {
    time.advance(1);
    progress.update({ done, success: done / 10 });
  }
  const lines = stream.out.trimEnd().split('\n');
  assert.deepEqual(lines.map((l) => l.split(' ')[2]), ['(1/7)', '(3/7)', '(6/7)', '(7/7)']);
  assert.ok(!stream.out.includes('\r'));
});

test('a resumed run counts from its start step and times only the new steps', () => {
  const stream = fakeStream(false);
  const time = fakeClock();
  const progress = new ProgressDisplay({ stream, total: 30, startAt: 20, every: 1, clock: time.clock });
  time.advance(5);
  progress.update({ done: 21 });
  assert.match(stream.out, /^step 20 \(21\/30\) \[#######\.\.\.\] 70% ETA 45s/);
});

test('log prints above the live line and redraws it; finish replaces it with the summary', () => {
  const stream = fakeStream(true);
  const time = fakeClock();
  const progress = new ProgressDisplay({ stream, total: 4, clock: time.clock });
  time.advance(1);
  progress.update({ done: 1, success: 0.25, successOf: 'best-branch', evalSuccess: 0.2, evalStep: -1, samplesPerS: 4 });
  const live = stream.out.slice('\r\x1b[K'.length);
  stream.out = '';
  progress.log('saved checkpoint step-1');
  assert.equal(stream.out, `\r\x1b[Ksaved checkpoint step-1\n${live}`);
  stream.out = '';
  time.advance(9);
  const summary = progress.finish({ eval: { success: 0.5, ciLow: 0.3, ciHigh: 0.7, n: 40 } });
  assert.equal(summary, 'done 1/4 steps in 10s: held-out 50% (95% CI 30-70%, n=40), tree success 25% on the last step, 4 samples/s');
  assert.equal(stream.out, `\r\x1b[K${summary}\n`);
});

test('records from metrics.jsonl map onto the progress line', () => {
  const records = syntheticRecords({ steps: 3, warmStartSteps: 2 });
  const train = records.find((r): r is TrainRecord => r.kind === 'train')!;
  const evalRecord = records.find((r): r is EvalRecord => r.kind === 'eval')!;
  const update = progressFromTrain(train, evalRecord);
  assert.equal(update.done, train.step + 1);
  assert.equal(update.evalSuccess, evalRecord.success_rate);
  assert.equal(update.evalStep, evalRecord.step);
  assert.equal(update.successOf, train.success_of);
  assert.deepEqual(Object.keys(update.rewards ?? {}), Object.keys(train.roles));
  assert.equal(update.rewards!.plan, train.roles.plan!.reward);
  const ws = records.find((r): r is WarmStartRecord => r.kind === 'warm-start')!;
  assert.equal(progressFromWarmStart(ws).extra, `loss ${ws.loss!.toFixed(3)}`);
});
