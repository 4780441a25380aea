import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildReportCharts, movingAverage } from './report-charts.js';
import { syntheticRecords } from '../metrics/synthetic-records.test-helper.js';
import type { ChartSpec } from './chart-types.js';
import type { EvalRecord, MetricsRecord, TrainRecord } from '../metrics/types.js';

const records = syntheticRecords({ steps: 20, warmStartSteps: 5, evalEvery: 5, roles: ['tool', 'plan'], policies: ['tool', 'plan'] });
const train = records.filter((r): r is TrainRecord => r.kind === 'train');
const evals = records.filter((r): r is EvalRecord => r.kind === 'eval');

function chart(list: readonly MetricsRecord[], id: string): ChartSpec {
  const found = buildReportCharts(list).sections.flatMap((s) => s.charts).find((c) => c.id === id);
  assert.ok(found, `chart ${id}`);
  return found;
}

test('every chart the brief asks for is there when its data is', () => {
  const ids = buildReportCharts(records).sections.flatMap((s) => s.charts.map((c) => c.id));
  for (const id of ['success', 'reward', 'reward-parts', 'turns', 'response-length', 'loss', 'kl', 'clip-fraction', 'entropy', 'samples-per-s', 'tokens-per-s', 'time-split', 'warm-start-loss']) {
    assert.ok(ids.includes(id), id);
  }
});

test('per-role series carry the records values, one series per role', () => {
  const reward = chart(records, 'reward');
  assert.deepEqual(reward.series.map((s) => s.name), ['tool', 'plan']);
  const plan = reward.series[1]!;
  assert.deepEqual(plan.points, train.map((r) => [r.step, r.roles.plan!.reward]));
  const loss = chart(records, 'loss');
  assert.deepEqual(loss.series[0]!.points.map((p) => p[1]), train.map((r) => r.policies.tool!.loss));
});

test('a role keeps its colour on every chart', () => {
  const color = (id: string, name: string) => chart(records, id).series.find((s) => s.name === name)?.color;
  assert.equal(color('reward', 'plan'), color('response-length', 'plan'));
  assert.equal(color('reward', 'plan'), color('reward-parts', 'plan local'));
  assert.notEqual(color('reward', 'plan'), color('reward', 'tool'));
});

test('the success chart shows eval with its intervals, the base policy at step -1', () => {
  const success = chart(records, 'success');
  const evalSeries = success.series.find((s) => s.intervals !== undefined)!;
  assert.deepEqual(evalSeries.points, evals.map((r) => [r.step, r.success_rate]));
  assert.deepEqual(evalSeries.intervals, evals.map((r) => [r.step, r.ci_low, r.ci_high]));
  assert.equal(evalSeries.points[0]![0], -1);
  assert.equal(evalSeries.name, 'held-out (95% CI)');
  assert.equal(success.series[0]!.name, 'tree success (training tasks)', 'best-branch success is named as the search\'s');
  assert.match(success.caption ?? '', /measures the search and runs above the policy alone/);
  assert.equal(success.percent, true);
});

test('unmeasured charts are left out and named; a run without warm start has no warm-start section', () => {
  const noKl = records.filter((r) => r.kind !== 'warm-start').map((r) =>
    r.kind === 'train' ? { ...r, policies: Object.fromEntries(Object.entries(r.policies).map(([k, p]) => [k, { ...p, kl: null }])) } : r,
  );
  const built = buildReportCharts(noKl);
  assert.ok(built.missing.includes('KL to the reference per policy'));
  assert.ok(built.missing.includes('Warm-start loss'));
  assert.ok(!built.sections.some((s) => s.title === 'Warm start'));
  assert.ok(!built.sections.flatMap((s) => s.charts).some((c) => c.id === 'kl'));
});

test('movingAverage is a trailing mean that keeps gaps', () => {
  assert.deepEqual(movingAverage([[0, 1], [1, 3], [2, null], [3, 5], [4, 7]], 2), [[0, 1], [1, 2], [2, null], [3, 4], [4, 6]]);
});
