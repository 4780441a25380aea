import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { loadNativeBinding } from '../kernels/native-binding.js';
import { createNativeKernels } from '../kernels/native-kernels.js';
import { nativeSkip } from '../kernels/native-skip.test-helper.js';
import { MASKED_LOGIT } from '../logit-mask.js';
import { llamaConfig } from '../model/llama-config.js';
import { randomBf16Model } from '../model/random-bf16-model.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { Sampler } from './generate.js';
import type { GenerateRequest } from './types.js';
import { type RowSampler, type RowSampling, sampleToken, sampleTokenRows, type TokenChoice } from './sample-token.js';

// The native sampler (native/src/sample-rows.cc) must choose the tokens and logprobs that the
// TypeScript sampler does, to the bit, or a run's tokens would depend on the backend: its
// exponential reimplements V8's Math.exp and its sums keep the token order. Compared on every
// kernel table this CPU runs (the AVX2 lanes and the scalar baseline), 1 and 3 threads, over
// rows that reach each branch of the exponential (|x| below 2^-28, below ln2/2 and 1.5 ln2,
// beyond 708 and masked), temperatures 1, 0.7 and 1.6, and a score temperature of its own.
const load = loadNativeBinding();

function rowsOf(rng: Rng, rows: number, vocab: number): Float32Array {
  const logits = new Float32Array(rows * vocab);
  for (let r = 0; r < rows; r++) {
    const spread = [0.5, 3, 30, 800, 1e-7][r % 5]!;
    for (let i = 0; i < vocab; i++) logits[r * vocab + i] = (rng.next() - 0.5) * spread;
    if (r % 3 === 1) for (let i = 0; i < vocab; i += 7) logits[r * vocab + i] = MASKED_LOGIT;
    if (r % 4 === 2) logits[r * vocab + (r % vocab)] = -Infinity;
  }
  return logits;
}

function jsChoices(logits: Float32Array, vocab: number, rows: RowSampling[], scoreTemperature: number): TokenChoice[] {
  return rows.map((row, r) => sampleToken(logits.subarray(r * vocab, (r + 1) * vocab), row.params, row.rng, scoreTemperature));
}

const states = (seed: number, temperatures: number[]): RowSampling[] =>
  temperatures.map((temperature, i) => ({ params: { temperature, topK: 0, topP: 1 }, rng: Rng.derive(seed, i) }));

test('native sampleRows picks the TypeScript sampler\'s tokens with the same logprob bits', { skip: load.binding ? false : nativeSkip }, () => {
  const rng = new Rng(7);
  for (const isa of load.binding!.isas) {
    for (const threads of [1, 3]) {
      // parallelFrom 0: rows split across the threads even at these small sizes.
      const kernels = createNativeKernels({ isa, threads, parallelFrom: 0 }) as unknown as RowSampler;
      for (const [vocab, scoreTemperature] of [[37, 1], [1000, 1], [4099, 0.8]] as const) {
        const temperatures = Array.from({ length: 20 }, (_, r) => [1, 0.7, 1.6][r % 3]!);
        const logits = rowsOf(rng, temperatures.length, vocab);
        const expected = jsChoices(logits, vocab, states(vocab, temperatures), scoreTemperature);
        const got = sampleTokenRows(logits, vocab, states(vocab, temperatures), scoreTemperature, kernels);
        assert.deepEqual(got, expected, `${isa}, ${threads} threads, vocab ${vocab}`);
      }
    }
  }
});

test('native sampleRows: rows it leaves (NaN, +Infinity) and mixed requests come out as in TypeScript', { skip: load.binding ? false : nativeSkip }, () => {
  const kernels = createNativeKernels({ threads: 2 }) as unknown as RowSampler;
  const vocab = 300;
  const logits = rowsOf(new Rng(3), 4, vocab);
  logits[5] = Number.NaN;
  logits[vocab + 9] = Infinity;
  const rows = (seed: number): RowSampling[] => [
    ...states(seed, [1, 1]),
    { params: { temperature: 0.9, topK: 5, topP: 1 }, rng: Rng.derive(seed, 2) },
    { params: { temperature: 1, topK: 0, topP: 1 }, rng: Rng.derive(seed, 3) },
  ];
  const expected = jsChoices(logits, vocab, rows(11), 1);
  const sampled = rows(11);
  assert.deepEqual(sampleTokenRows(logits, vocab, sampled, 1, kernels), expected);
  // One draw a token, as sampleToken: each Rng is where the TypeScript sampler leaves it.
  const reference = rows(11);
  jsChoices(logits, vocab, reference, 1);
  assert.deepEqual(sampled.map((r) => r.rng.next()), reference.map((r) => r.rng.next()));
});

test('native sampleRows rejects a temperature of 0 or a draw outside [0, 1) with the op named', { skip: load.binding ? false : nativeSkip }, () => {
  const kernels = createNativeKernels({ threads: 1 });
  const logits = new Float32Array(8);
  const out = new Float64Array(4);
  assert.throws(() => kernels.sampleRows!(logits, 1, 8, Float64Array.of(0), Float64Array.of(0.5), out), /sampleRows: every temperature must be a finite number > 0/);
  assert.throws(() => kernels.sampleRows!(logits, 1, 8, Float64Array.of(1), Float64Array.of(1), out), /sampleRows: every uniform draw must be in \[0, 1\)/);
  assert.throws(() => kernels.sampleRows!(logits, 2, 8, Float64Array.of(1, 1), Float64Array.of(0, 0), out), /sampleRows: 'logits'/);
});

// The same through the sampler: a batch mixing whole-row requests with a top-k and a greedy one
// (the rows sampleRows takes in one call, one at a time, or not at all) gives the same
// generations with the native kernels' sampleRows as with TypeScript sampling on those kernels.
test('Sampler: native row sampling generates what TypeScript sampling does', { skip: load.binding ? false : nativeSkip }, () => {
  const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 64, vocab: 64, context: 40 });
  const tokenizer = CharTokenizer.standard();
  const prompt = tokenizer.encode('GRID:\nS.#\n.#G\nPLAN:');
  const requests: GenerateRequest[] = [
    { promptIds: prompt, n: 5, seed: 3, maxTokens: 12, temperature: 1, stopIds: [5] },
    { promptIds: prompt.slice(2), n: 3, seed: 4, maxTokens: 8, temperature: 0.7 },
  ];
  const mixed: GenerateRequest[] = [...requests, { promptIds: prompt, n: 2, seed: 5, maxTokens: 8, temperature: 1, topK: 5 }, { promptIds: prompt, n: 1, seed: 6, maxTokens: 8, temperature: 0 }];
  const generate = (native: boolean, batch: GenerateRequest[]) => {
    const kernels = createNativeKernels({ threads: 2 });
    const model = randomBf16Model(native ? kernels : { ...kernels, sampleRows: undefined }, config, 21);
    const sampler = new Sampler(model, tokenizer);
    const out = sampler.generate(batch);
    sampler.dispose();
    return out;
  };
  for (const batch of [requests, mixed]) {
    const withNative = generate(true, batch);
    assert.deepEqual(withNative, generate(false, batch));
    assert.ok(new Set(withNative.flat().map((g) => g.text)).size > 3, 'the completions differ from each other');
  }
});
