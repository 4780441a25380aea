// Each Tinker loss: value on hand-computed cases, and d(loss)/d(logprobs) against finite differences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LOSS_FUNCTIONS } from './loss-functions.js';
import { LOSS_FNS } from './types.js';

const lp = [-1.2, -0.3, -2.5, -0.9];
const inputs = { weights_T: [1, 0, 2, 1], samplingLogprobs_T: [-1.0, -0.6, -2.5, -0.2], advantages_T: [1, -2, 0.5, 1.5] };

test('cross_entropy is the weighted negative log-likelihood sum', () => {
  const r = LOSS_FUNCTIONS.cross_entropy(lp, inputs, {});
  assert.ok(Math.abs(r.loss - (1.2 + 0 + 5 + 0.9)) < 1e-9);
  assert.deepEqual(Array.from(r.dLoss_dLogprobs_T), [-1, -0, -2, -1]);
});

test('importance_sampling is -sum exp(lp - q) A', () => {
  const expected = -lp.reduce((s, l, t) => s + Math.exp(l - inputs.samplingLogprobs_T[t]!) * inputs.advantages_T[t]!, 0);
  assert.ok(Math.abs(LOSS_FUNCTIONS.importance_sampling(lp, inputs, {}).loss - expected) < 1e-6);
});

test('ppo clips the ratio at the configured thresholds (0.8 / 1.2 by default)', () => {
  // Token 0: ratio exp(-0.2) = 0.82, A > 0: unclipped is smaller. Token 3: ratio exp(-0.7) = 0.50, A > 0: unclipped smaller.
  // Token 1: ratio exp(0.3) = 1.35, A < 0: -2 * 1.35 < -2 * 1.2, the unclipped (more pessimistic) term wins.
  const r = LOSS_FUNCTIONS.ppo(lp, inputs, {});
  assert.ok(Math.abs(r.elementwise_T[1]! - 2 * Math.exp(0.3)) < 1e-6);
  const tight = LOSS_FUNCTIONS.ppo([-0.9], { samplingLogprobs_T: [-1.0], advantages_T: [1] }, { clip_low_threshold: 0.95, clip_high_threshold: 1.05 });
  assert.ok(Math.abs(tight.loss + 1.05) < 1e-6, 'ratio 1.105 with A > 0 is clipped to 1.05');
  assert.equal(tight.dLoss_dLogprobs_T[0], 0, 'a clipped token passes no gradient');
});

test('every loss gradient matches finite differences', () => {
  // cispo's clip weight is a stop-gradient by definition, so finite differences do not apply.
  for (const name of LOSS_FNS.filter((n) => n !== 'cispo')) {
    const f = LOSS_FUNCTIONS[name];
    const grad = f(lp, inputs, {}).dLoss_dLogprobs_T;
    for (let t = 0; t < lp.length; t++) {
      const h = 1e-5;
      const plus = lp.map((v, i) => (i === t ? v + h : v));
      const minus = lp.map((v, i) => (i === t ? v - h : v));
      const numeric = (f(plus, inputs, {}).loss - f(minus, inputs, {}).loss) / (2 * h);
      assert.ok(Math.abs(numeric - grad[t]!) < 1e-4, `${name} token ${t}: ${grad[t]} vs ${numeric}`);
    }
  }
});
