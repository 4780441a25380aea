import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeAdvantages } from './compute-advantages.js';
import { mixReward } from './mix-reward.js';

function s(group: string, score: number, episode?: number) {
  return { group, score, advantage: 0, ...(episode === undefined ? {} : { episode }) };
}

test('advantages are computed per group key, never across groups', () => {
  const samples = [s('a|t0|tool', 1), s('b|t0|tool', 10), s('a|t0|tool', 3), s('b|t0|tool', 30)];
  const { samples: out, groups } = computeAdvantages(samples, 'mean');
  assert.equal(groups, 2);
  assert.deepEqual(out.map((x) => x.advantage), [-1, -10, 1, 10]);
  assert.equal(samples[0]!.advantage, 0, 'input not modified');
});

test('independent groups compare episodes once each and broadcast to their samples', () => {
  // Episode 0 has three samples with return 3, episode 1 one sample with return 1.
  // Per episode: mean (3 + 1) / 2 = 2, so +1 and -1. Weighting by samples would give mean 2.5.
  const samples = [s('a|plan', 3, 0), s('a|plan', 3, 0), s('a|plan', 1, 1), s('a|plan', 3, 0)];
  const { samples: out } = computeAdvantages(samples, 'mean');
  assert.deepEqual(out.map((x) => x.advantage), [1, 1, -1, 1]);
});

test('samples of one episode with different scores break an invariant', () => {
  assert.throws(() => computeAdvantages([s('a|plan', 1, 0), s('a|plan', 2, 0)], 'grpo'), /invariant/);
});

test('the zero-variance filter drops tied groups and reports them', () => {
  const samples = [s('x', 1), s('x', 1), s('y', 0), s('y', 2), s('z', 5)];
  const result = computeAdvantages(samples, 'grpo', { filterZeroVariance: true });
  assert.equal(result.groups, 3);
  assert.equal(result.droppedGroups, 2);
  assert.equal(result.droppedSamples, 3);
  assert.deepEqual(result.samples.map((x) => x.group), ['y', 'y']);
  assert.ok(Math.abs(result.samples[0]!.advantage + 1) < 1e-5);
  const unfiltered = computeAdvantages(samples, 'grpo');
  assert.equal(unfiltered.samples.length, 5);
  assert.equal(unfiltered.droppedGroups, 0);
});

test('the std floor reaches the estimator: a narrow group keeps its spread', () => {
  const samples = [s('n', -0.1), s('n', -0.11), s('w', 0), s('w', 2)];
  const out = computeAdvantages(samples, 'grpo', { stdFloor: 0.1 }).samples.map((x) => x.advantage);
  [0.05, -0.05, -1, 1].forEach((expected, i) => assert.ok(Math.abs(out[i]! - expected) < 1e-5, `sample ${i}: ${out[i]}`));
});

test('mixReward: total = local + alpha * global', () => {
  assert.deepEqual(mixReward(0.5, 2, 0.25), { local: 0.5, global: 2, total: 1 });
  assert.deepEqual(mixReward(-1, 3, 0), { local: -1, global: 3, total: -1 });
});
