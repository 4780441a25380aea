import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimators, type EstimatorName } from './advantage-estimators.js';

function close(actual: number[], expected: number[], tol = 1e-5): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]!) <= tol, `index ${i}: ${a} vs ${expected[i]}`));
}

// Hand-computed on scores [1, 2, 3, 4]: mean 2.5, population std sqrt(1.25) = 1.1180340.
const table: Record<EstimatorName, number[]> = {
  grpo: [-1.3416396, -0.4472132, 0.4472132, 1.3416396],
  mean: [-1.5, -0.5, 0.5, 1.5],
  rloo: [1 - 3, 2 - 8 / 3, 3 - 7 / 3, 4 - 2],
  max: [-3, -2, -1, 0],
  raw: [1, 2, 3, 4],
};

for (const [name, expected] of Object.entries(table) as Array<[EstimatorName, number[]]>) {
  test(`${name} matches hand-computed values on [1, 2, 3, 4]`, () => {
    close(estimators[name]([1, 2, 3, 4]), expected);
  });
}

test('grpo uses the population std (divides by G), not the sample std', () => {
  // Sample std would be sqrt(2) for [0, 2] and give +-0.7071; population std 1 gives +-1.
  close(estimators.grpo([0, 2]), [-1, 1]);
});

test('single-sample groups give defined values: 0 for centred estimators', () => {
  assert.deepEqual(estimators.grpo([5]), [0]);
  assert.deepEqual(estimators.mean([5]), [0]);
  assert.deepEqual(estimators.rloo([5]), [0]);
  assert.deepEqual(estimators.max([5]), [0]);
  assert.deepEqual(estimators.raw([5]), [5]);
});

test('zero-variance groups give exact zeros for grpo, mean and rloo', () => {
  // 0.1 * 3 / 3 is not exactly 0.1 in floating point: the tie must be detected, not rounded.
  for (const name of ['grpo', 'mean', 'rloo', 'max'] as const) {
    assert.deepEqual(estimators[name]([0.1, 0.1, 0.1]), [0, 0, 0], name);
  }
  assert.deepEqual(estimators.raw([0.1, 0.1]), [0.1, 0.1]);
});

test('rloo with an outlier: each sample is compared with the mean of the others', () => {
  close(estimators.rloo([0, 0, 3]), [-1.5, -1.5, 3]);
});

test('grpo std floor: spreads below it keep their size, wider ones are scaled as before', () => {
  // Two bad moves priced 0.01 apart: population std 0.005 makes them +-1 without a floor.
  close(estimators.grpo([-0.1, -0.11]), [1, -1], 1e-3); // 0.005 / (0.005 + 1e-6)
  close(estimators.grpo([-0.1, -0.11], { stdFloor: 0.1 }), [0.05, -0.05]);
  // std 1 is above a floor of 0.1: the same advantages as plain grpo, bit for bit.
  assert.deepEqual(estimators.grpo([0, 2], { stdFloor: 0.1 }), estimators.grpo([0, 2]));
  // A floor of 0 is plain grpo; ties stay exact zeros under any floor.
  assert.deepEqual(estimators.grpo([1, 2, 3, 4], { stdFloor: 0 }), estimators.grpo([1, 2, 3, 4]));
  assert.deepEqual(estimators.grpo([0.1, 0.1, 0.1], { stdFloor: 0.5 }), [0, 0, 0]);
  // Only grpo divides by a std: the other estimators ignore the floor.
  assert.deepEqual(estimators.mean([1, 2], { stdFloor: 10 }), estimators.mean([1, 2]));
});
