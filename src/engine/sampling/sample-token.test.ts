import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../util/rng.js';
import { sampleToken } from './sample-token.js';

const logits = new Float32Array([0.5, 2.0, -1.0, 2.0, 1.0, -3.0]); // ids 1 and 3 tie for the max

function logSoftmax(values: Float32Array, temperature: number): number[] {
  const scaled = Array.from(values, (v) => v / temperature);
  const max = Math.max(...scaled);
  const z = max + Math.log(scaled.reduce((s, v) => s + Math.exp(v - max), 0));
  return scaled.map((v) => v - z);
}

test('greedy and top-k = 1 pick the argmax, lowest id on ties', () => {
  const rng = new Rng(1);
  const greedy = sampleToken(logits, { temperature: 0, topK: 0, topP: 1 }, rng);
  assert.equal(greedy.id, 1);
  assert.equal(greedy.samplingLogprob, 0);
  for (let i = 0; i < 20; i++) {
    const c = sampleToken(logits, { temperature: 1.3, topK: 1, topP: 1 }, rng);
    assert.equal(c.id, 1);
    assert.equal(c.samplingLogprob, 0);
  }
});

test('logprob is under the untruncated model distribution at the score temperature', () => {
  const rng = new Rng(2);
  const c = sampleToken(logits, { temperature: 0.7, topK: 3, topP: 0.9 }, rng);
  assert.ok(Math.abs(c.logprob - logSoftmax(logits, 1)[c.id]!) < 1e-12);
  const c2 = sampleToken(logits, { temperature: 0.7, topK: 0, topP: 1 }, new Rng(2), 0.7);
  assert.ok(Math.abs(c2.logprob - logSoftmax(logits, 0.7)[c2.id]!) < 1e-12);
  assert.ok(Math.abs(c2.samplingLogprob - c2.logprob) < 1e-12); // no truncation: same distribution
});

test('top-k and top-p restrict the support and renormalise; frequencies follow the distribution', () => {
  const rng = new Rng(3);
  const counts = new Map<number, number>();
  const draws = 20000;
  for (let i = 0; i < draws; i++) {
    const c = sampleToken(logits, { temperature: 1, topK: 3, topP: 1 }, rng);
    counts.set(c.id, (counts.get(c.id) ?? 0) + 1);
    const kept = [1, 3, 4].map((id) => Math.exp(logits[id]!));
    const mass = kept.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(c.samplingLogprob - Math.log(Math.exp(logits[c.id]!) / mass)) < 1e-9);
  }
  assert.deepEqual([...counts.keys()].sort(), [1, 3, 4]);
  const p4 = Math.exp(1) / (2 * Math.exp(2) + Math.exp(1));
  assert.ok(Math.abs(counts.get(4)! / draws - p4) < 0.015, `id 4 drawn ${counts.get(4)! / draws}, expected ${p4}`);

  // probabilities (0.5, 0.3, 0.2): top-p 0.6 keeps the two most likely tokens, 0.8 too, 0.81 all three
  const probs = new Float32Array([Math.log(0.2), Math.log(0.5), Math.log(0.3)]);
  const support = (topP: number) => {
    const ids = new Set<number>();
    const r = new Rng(4);
    for (let i = 0; i < 2000; i++) ids.add(sampleToken(probs, { temperature: 1, topK: 0, topP }, r).id);
    return [...ids].sort();
  };
  assert.deepEqual(support(0.6), [1, 2]);
  assert.deepEqual(support(0.81), [0, 1, 2]);
  assert.deepEqual(support(0.3), [1]);
});

test('the same Rng state gives the same token', () => {
  const a = Array.from({ length: 50 }, (_, i) => sampleToken(logits, { temperature: 1, topK: 0, topP: 0.95 }, Rng.derive(9, i)).id);
  const b = Array.from({ length: 50 }, (_, i) => sampleToken(logits, { temperature: 1, topK: 0, topP: 0.95 }, Rng.derive(9, i)).id);
  assert.deepEqual(a, b);
  assert.ok(new Set(a).size > 1);
});

test('sampling the whole row (no top-k, top-p) draws and scores with the bits of the plain formula', () => {
  const vocab = 1000;
  const rng = new Rng(9);
  const row = Float32Array.from({ length: vocab }, () => (rng.nextU32() / 2 ** 32 - 0.5) * 12);
  for (const [T, scoreT] of [[1, 1], [0.7, 0.7], [0.7, 1]] as const) {
    for (let draw = 0; draw < 50; draw++) {
      const seed = 100 + draw;
      const got = sampleToken(row, { temperature: T, topK: 0, topP: 1 }, new Rng(seed), scoreT);
      // The formula, summed left to right in float64: softmax(row / T) for the draw and the
      // sampling log-prob, log softmax(row / scoreT) for the log-prob.
      const weightsAt = (t: number) => {
        let max = -Infinity;
        for (const x of row) max = Math.max(max, x / t);
        const w = Array.from(row, (x) => Math.exp(x / t - max));
        return { max, w, total: w.reduce((a, b) => a + b, 0) };
      };
      const sampling = weightsAt(T);
      let u = new Rng(seed).next() * sampling.total;
      const id = sampling.w.findIndex((w) => (u -= w) < 0);
      const score = weightsAt(scoreT);
      assert.equal(got.id, id);
      assert.ok(Object.is(got.logprob, row[id]! / scoreT - (score.max + Math.log(score.total))), `T ${T}, score T ${scoreT}: logprob ${got.logprob}`);
      assert.ok(Object.is(got.samplingLogprob, Math.log(sampling.w[id]! / sampling.total)));
    }
  }
});
