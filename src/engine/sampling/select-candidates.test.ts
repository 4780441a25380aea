import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../util/rng.js';
import { sampleToken, type SamplingParams, type TokenChoice } from './sample-token.js';
import { topKIds } from './select-candidates.js';
import { idsByLogit } from './radix-order.js';

/**
 * The truncated sampler as it was before candidate selection: sort every id, most likely
 * first (lower id first on equal logits), slice k, weigh, cut the top-p prefix, draw. The new
 * one must give the same token and the same float64 log-probs, bit for bit.
 */
function sortingSampler(logits: Float32Array, params: SamplingParams, rng: Rng, scoreT: number): TokenChoice {
  const V = logits.length;
  let max0 = -Infinity;
  for (const x of logits) max0 = Math.max(max0, x / scoreT);
  let sum0 = 0;
  for (const x of logits) sum0 += Math.exp(x / scoreT - max0);
  const logNormaliser = max0 + Math.log(sum0);
  const T = params.temperature;
  let candidates: number[] = Array.from({ length: V }, (_, i) => i);
  // Without top-k or top-p the row is drawn from in id order, as sampleWholeRow does.
  if ((params.topK > 0 && params.topK < V) || params.topP < 1) candidates.sort((a, b) => logits[b]! - logits[a]! || a - b);
  if (params.topK > 0 && params.topK < V) candidates = candidates.slice(0, params.topK);
  let max = -Infinity;
  for (const i of candidates) max = Math.max(max, logits[i]! / T);
  let weights = candidates.map((i) => Math.exp(logits[i]! / T - max));
  if (params.topP < 1) {
    const total = weights.reduce((a, b) => a + b, 0);
    let cumulative = 0;
    let keep = 0;
    while (keep < weights.length && (keep === 0 || cumulative < params.topP * total)) cumulative += weights[keep++]!;
    candidates = candidates.slice(0, keep);
    weights = weights.slice(0, keep);
  }
  const total = weights.reduce((a, b) => a + b, 0);
  let u = rng.next() * total;
  let pick = candidates.length - 1;
  while (pick > 0 && weights[pick] === 0) pick--;
  for (let j = 0; j < candidates.length; j++) {
    u -= weights[j]!;
    if (u < 0) {
      pick = j;
      break;
    }
  }
  const id = candidates[pick]!;
  return { id, logprob: logits[id]! / scoreT - logNormaliser, samplingLogprob: Math.log(weights[pick]! / total) };
}

/** Rows of several kinds: spread-out values, few distinct levels (many ties), signed zeros, infinities, NaN. */
function randomRow(rng: Rng, V: number, kind: number): Float32Array {
  const u = () => rng.nextU32() / 2 ** 32;
  return Float32Array.from({ length: V }, () => {
    switch (kind) {
      case 0: return (u() - 0.5) * 16;
      case 1: return Math.round((u() - 0.5) * 6); // integers -3..3
      case 2: return u() < 0.5 ? -0 : u() < 0.5 ? 0 : Math.round(u() * 2) - 1;
      case 3: return u() < 0.05 ? -Infinity : u() < 0.02 ? Infinity : (u() - 0.5) * 40;
      case 4: return u() < 0.01 ? NaN : (u() - 0.5) * 8;
      default: return u() < 0.9 ? -1e4 : (u() - 0.5) * 4; // a peaked row, like a trained model's
    }
  });
}

function sameChoice(got: TokenChoice, want: TokenChoice, what: string): void {
  assert.equal(got.id, want.id, `${what}: id`);
  assert.ok(Object.is(got.logprob, want.logprob), `${what}: logprob ${got.logprob} vs ${want.logprob}`);
  assert.ok(Object.is(got.samplingLogprob, want.samplingLogprob), `${what}: samplingLogprob ${got.samplingLogprob} vs ${want.samplingLogprob}`);
}

test('top-k / top-p draws and log-probs are bit-identical to sorting the whole row', () => {
  const rng = new Rng(33);
  const temperatures = [0.3, 0.7, 1, 1.5];
  const topPs = [1, 1, 0.999, 0.95, 0.9, 0.5, 0.1, 1e-9, 0];
  let compared = 0;
  for (let row = 0; row < 600; row++) {
    const V = 1 + rng.int(row % 10 === 0 ? 3000 : 200);
    const kind = row % 6;
    const logits = randomRow(rng, V, kind);
    const ks = [0, 1, 2, 5, 50, Math.max(1, V >> 3), Math.max(1, (V >> 3) + 1), V - 1, V, V + 3, 1 + rng.int(V)];
    for (let draw = 0; draw < 6; draw++) {
      const params: SamplingParams = { temperature: temperatures[rng.int(temperatures.length)]!, topK: ks[rng.int(ks.length)]!, topP: topPs[rng.int(topPs.length)]! };
      const scoreT = rng.int(3) === 0 ? params.temperature : 1;
      const seed = rng.nextU32();
      const what = `row ${row} (kind ${kind}, V ${V}) ${JSON.stringify(params)} score T ${scoreT}`;
      sameChoice(sampleToken(logits, params, new Rng(seed), scoreT), sortingSampler(logits, params, new Rng(seed), scoreT), what);
      compared++;
    }
  }
  assert.equal(compared, 3600);
});

test('a vocabulary of 151,936: top-k 50, top-p 0.9 and both give the bits of sorting the row', () => {
  const rng = new Rng(34);
  for (const kind of [0, 1, 5]) {
    const logits = randomRow(rng, 151936, kind);
    for (const params of [{ temperature: 1, topK: 50, topP: 1 }, { temperature: 1, topK: 0, topP: 0.9 }, { temperature: 0.7, topK: 50, topP: 0.9 }]) {
      const seed = rng.nextU32();
      sameChoice(sampleToken(logits, params, new Rng(seed), 1), sortingSampler(logits, params, new Rng(seed), 1), `kind ${kind} ${JSON.stringify(params)}`);
    }
  }
});

test('topKIds: the k best ids, most likely first, lower id first on ties', () => {
  const logits = new Float32Array([1, 3, 3, -Infinity, 2, 3, 0, -0, 2]);
  assert.deepEqual(topKIds(logits, 1), [1]);
  assert.deepEqual(topKIds(logits, 2), [1, 2]);
  assert.deepEqual(topKIds(logits, 4), [1, 2, 5, 4]);
  assert.deepEqual(topKIds(logits, 8), [1, 2, 5, 4, 8, 0, 6, 7]);
});

test('idsByLogit: the comparator sort order, from bits (ties, signed zeros, infinities, denormals)', () => {
  const rng = new Rng(35);
  for (let row = 0; row < 60; row++) {
    const logits = randomRow(rng, 1 + rng.int(5000), row % 4);
    if (row % 5 === 0) logits[0] = 1e-45; // denormals, either side of the zeros
    if (row % 5 === 0 && logits.length > 1) logits[1] = -1e-45;
    const want = Array.from({ length: logits.length }, (_, i) => i).sort((a, b) => logits[b]! - logits[a]! || a - b);
    assert.deepEqual(Array.from(idsByLogit(logits)), want, `row ${row}`);
  }
});
