// The datums of a policy-gradient step must give Troupe's gradient under each service's
// reduction. The service's loss is written out here as each one documents or implements it,
// and differentiated by hand at the current weights: d(loss)/d(logprob_t) must be -w_t on
// every response token and 0 elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Datum } from '../tinker/types.js';
import { gradientDatums } from './gradient-datums.js';

const sequences = [
  { promptIds: [5, 6, 7], responseIds: [8, 9] },
  { promptIds: [5, 6], responseIds: [10] },
  { promptIds: [4, 6, 7, 1], responseIds: [2, 3, 11] },
];
const coefficients = [[0.5, -0.25], [-1.5], [0.125, 0.75, -0.5]]; // signed, as advantages are
const forwardLogprobs = sequences.map((s, b) => Array.from({ length: s.promptIds.length + s.responseIds.length - 1 }, (_, t) => -0.1 * (t + 1) - b));

const input = (d: Datum, name: string) => Array.from(d.loss_fn_inputs[name]!.data as ArrayLike<number>);

/** Tinker's cross_entropy: sum over datums and tokens of -weight * logprob. */
function sumGradient(data: readonly Datum[]): number[][] {
  return data.map((d) => input(d, 'weights').map((w) => -w));
}

/**
 * SkyRL tx's reduction (its JAX backend): per datum sum(mask * loss_t) / sum(mask), then the
 * mean over the step's datums. importance_sampling's loss_t = -exp(lp_t - sampling_lp_t) * A_t,
 * cross_entropy's -lp_t; the mask is the datum's weights.
 */
function meanGradient(data: readonly Datum[], lossFn: string, at: readonly (readonly number[])[]): number[][] {
  return data.map((d, b) => {
    const mask = input(d, 'weights');
    const total = Math.max(mask.reduce((a, m) => a + m, 0), 1e-9);
    if (lossFn === 'cross_entropy') return mask.map((m) => -m / total / data.length);
    const [sampling, advantages] = [input(d, 'logprobs'), input(d, 'advantages')];
    return mask.map((m, t) => (-m * Math.exp(at[b]![t]! - sampling[t]!) * advantages[t]!) / total / data.length);
  });
}

function expected(): number[][] {
  return sequences.map((s, b) => {
    const g = new Array<number>(s.promptIds.length + s.responseIds.length - 1).fill(0);
    coefficients[b]!.forEach((w, t) => (g[s.promptIds.length - 1 + t] = -w));
    return g;
  });
}

function close(actual: number[][], wanted: number[][], what: string): void {
  actual.forEach((row, b) => row.forEach((v, t) => assert.ok(Math.abs(v - wanted[b]![t]!) < 1e-5, `${what}: datum ${b} position ${t}: ${v}, expected ${wanted[b]![t]}`)));
}

test('sum: cross_entropy with the coefficients as weights gives d(loss)/d(logprob) = -w on response tokens', () => {
  const { lossFn, data } = gradientDatums(sequences, coefficients, forwardLogprobs, 'sum');
  assert.equal(lossFn, 'cross_entropy');
  assert.deepEqual(data.map((d) => d.model_input.chunks[0]!.tokens), [[5, 6, 7, 8], [5, 6], [4, 6, 7, 1, 2, 3]]);
  assert.deepEqual(data.map((d) => input(d, 'target_tokens')), [[6, 7, 8, 9], [6, 10], [6, 7, 1, 2, 3, 11]]);
  close(sumGradient(data), expected(), 'sum');
});

test('mean: importance_sampling datums give the same gradient under a per-datum mean and a mean over datums', () => {
  const { lossFn, data } = gradientDatums(sequences, coefficients, forwardLogprobs, 'mean');
  assert.equal(lossFn, 'importance_sampling');
  data.forEach((d, b) => assert.deepEqual(input(d, 'logprobs'), Array.from(Float32Array.from(forwardLogprobs[b]!)), 'sampling logprobs = the forward ones: ratio 1'));
  close(meanGradient(data, lossFn, data.map((d) => input(d, 'logprobs'))), expected(), 'mean');
});

test('the sum datums under a mean reduction are not the gradient (why the setting exists)', () => {
  const { data } = gradientDatums(sequences, coefficients, forwardLogprobs, 'sum');
  const got = meanGradient(data, 'cross_entropy', []);
  assert.ok(got.some((row, b) => row.some((v, t) => Math.abs(v - expected()[b]![t]!) > 0.1)));
});
