import { test } from 'node:test';
import assert from 'node:assert/strict';
import { policyLoss, type PolicyLossOptions, type PolicyLossInput } from './policy-loss.js';

const ppo: PolicyLossOptions = {
  kind: 'ppo-clip',
  aggregation: 'token-mean',
  clipLow: 0.2,
  clipHigh: 0.2,
  klCoef: 0,
  klEstimator: 'k3',
};

function close(actual: number, expected: number, tolerance = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);
}

test('on-policy PPO loss is -mean(A) and its gradient is -A/N per token', () => {
  const result = policyLoss(
    { logprobs_N: [-1, -2, -0.5], oldLogprobs_N: [-1, -2, -0.5], advantages_N: [1, -2, 0.5], sequence_N: [0, 0, 1] },
    ppo,
  );
  close(result.loss, -(1 - 2 + 0.5) / 3);
  assert.deepEqual(Array.from(result.dLogprobs_N).map((g) => +g.toFixed(12)), [-1 / 3, 2 / 3, -0.5 / 3].map((g) => +g.toFixed(12)));
  assert.equal(result.clipFraction, 0);
});

test('ratios outside the band are clipped only on the side that would over-reward', () => {
  const up = Math.log(1.5); // ratio 1.5
  const down = Math.log(0.5); // ratio 0.5
  const result = policyLoss(
    {
      logprobs_N: [up, up, down, down],
      oldLogprobs_N: [0, 0, 0, 0],
      advantages_N: [1, -1, 1, -1],
      sequence_N: [0, 1, 2, 3],
    },
    ppo,
  );
  // token 0: A>0, ratio 1.5 -> clipped at 1.2, no gradient
  // token 1: A<0, ratio 1.5 -> unclipped objective -1.5 is smaller, gradient 1.5
  // token 2: A>0, ratio 0.5 -> unclipped 0.5 is smaller, gradient -0.5
  // token 3: A<0, ratio 0.5 -> clipped at 0.8 gives -0.8 < -0.5, no gradient
  close(result.loss, (-1.2 + 1.5 - 0.5 + 0.8) / 4);
  const g = Array.from(result.dLogprobs_N);
  close(g[0]!, 0);
  close(g[1]!, 1.5 / 4);
  close(g[2]!, -0.5 / 4);
  close(g[3]!, 0);
  close(result.clipFraction, 0.5);
});

test('gradient matches finite differences of the loss (away from the clip kinks)', () => {
  const input: PolicyLossInput = {
    logprobs_N: [-0.9, -1.3, -0.2, -2.2, -0.7],
    oldLogprobs_N: [-1.0, -1.2, -0.25, -2.0, -0.75],
    advantages_N: [0.7, -1.1, 0.3, 1.4, -0.2],
    sequence_N: [0, 0, 1, 1, 1],
    refLogprobs_N: [-1.1, -1.0, -0.3, -2.1, -0.6],
  };
  for (const aggregation of ['token-mean', 'sequence-mean'] as const) {
    for (const klEstimator of ['k1', 'k2', 'k3'] as const) {
      const options = { ...ppo, aggregation, klCoef: 0.3, klEstimator };
      const { dLogprobs_N } = policyLoss(input, options);
      const h = 1e-6;
      for (let i = 0; i < 5; i++) {
        const plus = Array.from(input.logprobs_N);
        const minus = Array.from(input.logprobs_N);
        plus[i]! += h;
        minus[i]! -= h;
        const numeric =
          (policyLoss({ ...input, logprobs_N: plus }, options).loss - policyLoss({ ...input, logprobs_N: minus }, options).loss) / (2 * h);
        close(dLogprobs_N[i]!, numeric, 1e-6);
      }
    }
  }
});

test('sequence-mean weighs each response equally, token-mean each token', () => {
  // One long response (3 tokens, A = 1) and one short (1 token, A = -1), on-policy.
  const input = { logprobs_N: [0, 0, 0, 0], oldLogprobs_N: [0, 0, 0, 0], advantages_N: [1, 1, 1, -1], sequence_N: [0, 0, 0, 1] };
  close(policyLoss(input, ppo).loss, -(3 - 1) / 4);
  close(policyLoss(input, { ...ppo, aggregation: 'sequence-mean' }).loss, -(1 - 1) / 2);
});

test('KL against an identical reference is zero for every estimator, positive otherwise for k2/k3', () => {
  const same = { logprobs_N: [-1, -2], oldLogprobs_N: [-1, -2], advantages_N: [0, 0], sequence_N: [0, 1], refLogprobs_N: [-1, -2] };
  for (const klEstimator of ['k1', 'k2', 'k3'] as const) {
    const result = policyLoss(same, { ...ppo, klCoef: 1, klEstimator });
    assert.equal(result.kl, 0);
    assert.equal(result.loss, 0);
  }
  const shifted = { ...same, refLogprobs_N: [-1.5, -1.5] };
  assert.ok(policyLoss(shifted, { ...ppo, klCoef: 1, klEstimator: 'k3' }).kl > 0);
  assert.ok(policyLoss(shifted, { ...ppo, klCoef: 1, klEstimator: 'k2' }).kl > 0);
});

test('reinforce loss ignores the ratio: -logprob * A', () => {
  const result = policyLoss(
    { logprobs_N: [-0.5, -3], oldLogprobs_N: [-5, 0], advantages_N: [2, -1], sequence_N: [0, 1] },
    { ...ppo, kind: 'reinforce' },
  );
  close(result.loss, (0.5 * 2 + -3 * 1) / 2);
  assert.deepEqual(Array.from(result.dLogprobs_N), [-1, 0.5]);
});

test('mismatched lengths and a missing reference are errors', () => {
  assert.throws(() => policyLoss({ logprobs_N: [0], oldLogprobs_N: [], advantages_N: [0], sequence_N: [0] }, ppo), /oldLogprobs_N/);
  assert.throws(
    () => policyLoss({ logprobs_N: [0], oldLogprobs_N: [0], advantages_N: [0], sequence_N: [0] }, { ...ppo, klCoef: 0.1 }),
    /refLogprobs_N/,
  );
});
