import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summarizeRun } from './summarize-run.js';
import { syntheticRecords } from '../metrics/synthetic-records.test-helper.js';
import type { MetricsRecord, TrainRecord } from '../metrics/types.js';

const records = syntheticRecords({ steps: 8, warmStartSteps: 4, evalEvery: 3 });

test('headline numbers: steps, the base and final evals, wall time from elapsed_s', () => {
  const s = summarizeRun(records);
  assert.equal(s.rlSteps, 8);
  assert.equal(s.warmStartSteps, 4);
  assert.equal(s.baseEval?.step, -1);
  assert.equal(s.finalEval?.step, 7);
  assert.equal(s.lastTrain?.step, 7);
  assert.equal(s.wallSeconds, Math.max(...records.map((r) => r.elapsed_s ?? 0)));
  assert.equal(s.wallIsSum, false);
});

test('without elapsed_s the wall time is the sum of step times, and the split is their ratio', () => {
  const train = records.filter((r): r is TrainRecord => r.kind === 'train');
  const bare = records.map(({ elapsed_s: _drop, ...rest }) => rest as MetricsRecord);
  const s = summarizeRun(bare);
  const rollout = train.reduce((a, r) => a + r.rollout_s, 0);
  const update = train.reduce((a, r) => a + r.update_s, 0);
  assert.equal(s.wallIsSum, true);
  assert.ok(Math.abs(s.wallSeconds! - (rollout + update)) < 1e-9);
  assert.ok(Math.abs(s.rolloutShare! - rollout / (rollout + update)) < 1e-12);
});

test('order in the file does not matter: the final eval is the highest step', () => {
  const s = summarizeRun([...records].reverse());
  assert.equal(s.finalEval?.step, 7);
  assert.deepEqual(summarizeRun([]), { rlSteps: 0, warmStartSteps: 0, wallIsSum: true });
});
