import { test } from 'node:test';
import assert from 'node:assert/strict';
import { policyLoss, truncatedImportanceWeights, type PolicyLossOptions, type PolicyLossInput } from './policy-loss.js';

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

test('truncated importance weights: exp(old - behaviour), capped, exactly 1 where the two agree', () => {
  const w = truncatedImportanceWeights([-1, -0.5, -2, -0.3], [-1, -2, -1.5, -0.3 + 0.1], 2);
  assert.equal(w.weights_N[0], 1);
  assert.equal(w.weights_N[1], 2); // exp(1.5) = 4.48, truncated to the cap
  close(w.weights_N[2]!, Math.exp(-0.5));
  close(w.weights_N[3]!, Math.exp(-0.1));
  close(w.truncatedFraction, 0.25);
  close(w.maxAbsGap, 1.5);
  close(w.meanAbsGap, (0 + 1.5 + 0.5 + 0.1) / 4);
  close(w.minWeight, Math.exp(-0.5));
  assert.equal(w.maxWeight, 2);
  close(w.meanWeight, (1 + 2 + Math.exp(-0.5) + Math.exp(-0.1)) / 4);
  assert.throws(() => truncatedImportanceWeights([0], [0, 1], 2), /behaviourLogprobs_N has 2 entries/);
  assert.throws(() => truncatedImportanceWeights([0], [0], 0.5), /cap is 0.5; it must be a number >= 1/);
});

test('behaviour log-probs equal to the old ones change nothing, bit for bit', () => {
  const input: PolicyLossInput = {
    logprobs_N: [-0.9, -1.3, -0.2, -2.2],
    oldLogprobs_N: [-1.0, -1.2, -0.25, -2.0],
    advantages_N: [0.7, -1.1, 0.3, 1.4],
    sequence_N: [0, 0, 1, 1],
    refLogprobs_N: [-1.1, -1.0, -0.3, -2.1],
  };
  for (const kind of ['ppo-clip', 'reinforce'] as const) {
    const options = { ...ppo, kind, klCoef: 0.1 };
    const plain = policyLoss(input, options);
    const decoupled = policyLoss({ ...input, behaviourLogprobs_N: input.oldLogprobs_N }, { ...options, tisCap: 2 });
    assert.equal(decoupled.loss, plain.loss);
    assert.deepEqual(decoupled.dLogprobs_N, plain.dLogprobs_N);
    assert.equal(decoupled.importance?.meanWeight, 1);
    assert.equal(plain.importance, null);
  }
});

test('decoupled PPO: the ratio is taken against old, each token term scaled by its truncated weight, KL not', () => {
  // The learner's recomputation is the proximal policy (ratio 1 at the first update); the
  // sampler's log-probs differ by +0.1, -0.1 and -3 (weight exp(3) truncated to 2).
  const old = [-1, -2, -0.5];
  const input = { logprobs_N: old, oldLogprobs_N: old, behaviourLogprobs_N: [-1.1, -1.9, -3.5], advantages_N: [1, -2, 0.5], sequence_N: [0, 1, 2], refLogprobs_N: [-1.2, -2, -0.5] };
  const result = policyLoss(input, { ...ppo, tisCap: 2, klCoef: 0.5, klEstimator: 'k2' });
  const w = [Math.exp(0.1), Math.exp(-0.1), 2];
  close(result.loss, (-w[0]! * 1 + w[1]! * 2 - w[2]! * 0.5 + 0.5 * 0.5 * 0.2 * 0.2) / 3);
  close(result.dLogprobs_N[0]!, (-w[0]! + 0.5 * 0.2) / 3);
  close(result.dLogprobs_N[1]!, (2 * w[1]!) / 3);
  close(result.dLogprobs_N[2]!, (-0.5 * w[2]!) / 3);
  close(result.importance!.truncatedFraction, 1 / 3);
  close(result.importance!.maxAbsGap, 3);
  // Away from the clip kinks the gradient is still the derivative of the loss.
  const moved = { ...input, logprobs_N: [-0.95, -2.05, -0.45] };
  const h = 1e-6;
  const options = { ...ppo, tisCap: 2 };
  const { dLogprobs_N } = policyLoss(moved, options);
  for (let i = 0; i < 3; i++) {
    const plus = [...moved.logprobs_N];
    const minus = [...moved.logprobs_N];
    plus[i]! += h;
    minus[i]! -= h;
    close(dLogprobs_N[i]!, (policyLoss({ ...moved, logprobs_N: plus }, options).loss - policyLoss({ ...moved, logprobs_N: minus }, options).loss) / (2 * h), 1e-6);
  }
  assert.throws(() => policyLoss(input, ppo), /behaviourLogprobs_N is given but options.tisCap is not set/);
});
