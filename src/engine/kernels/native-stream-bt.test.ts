import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { roundToBf16 } from '../io/half-float.js';
import { fillNormal } from '../io/random-tensors.js';
import { llamaConfig } from '../model/llama-config.js';
import { randomBf16Model } from '../model/random-bf16-model.js';
import { Sampler } from '../sampling/generate.js';
import type { GenerateRequest, Generation } from '../sampling/types.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';
import { nativeSkip } from './native-skip.test-helper.js';

// A few rows times a bf16 W^T (decoding a batch of sequences) streams W (native/src/isa-stream.cc)
// instead of packing it (gemm_block). The two must agree bit for bit, or switching paths would
// change sampled tokens: compared here on every table this CPU runs, threads 1 and 3 (the split
// by weight rows), with and without accumulate and activation rounding (the 'fast' mode), at
// row counts around the vector and group widths and k around the k block (256).
const load = loadNativeBinding();
const random = (rng: Rng, n: number, scale = 1) => Float32Array.from({ length: n }, () => (rng.nextU32() / 2 ** 32 - 0.5) * scale);

function bf16Bits(values: Float32Array): Uint16Array {
  const rounded = new Float32Array(values.length);
  roundToBf16(values, rounded);
  return new Uint16Array(rounded.buffer).filter((_, i) => i % 2 === 1);
}

test('native bf16 x W^T for 4-64 rows: streaming W gives the packed path\'s bits', { skip: load.binding ? false : nativeSkip }, () => {
  const rng = new Rng(33);
  for (const isa of load.binding!.isas) {
    for (const threads of [1, 3]) {
      const split = { threads, isa, parallelFrom: 0, rowsParallelFrom: 0 };
      const streamed = createNativeKernels({ ...split, streamRowsUpTo: 64 });
      const packed = createNativeKernels({ ...split, streamRowsUpTo: 0 });
      for (const m of [4, 5, 8, 9, 16, 17, 31, 33, 64]) {
        for (const k of [1, 7, 255, 256, 257, 600]) {
          // n = 1024: C rows a multiple of 4 KB apart (the outputs go through a tile buffer).
          for (const n of [1, 12, 13, 40, ...(k === 257 && m % 8 === 1 ? [1024] : [])]) {
            const roundA = (m + k + n) % 2 === 0;
            const accumulate = (m * k * n) % 3 === 0;
            const a = random(rng, m * k, 4);
            const b = bf16Bits(random(rng, n * k));
            const start = random(rng, m * n);
            const c1 = Float32Array.from(start);
            const c2 = Float32Array.from(start);
            streamed.matmulBf16({ a, b, c: c1, m, n, k, transB: true, accumulate, roundA });
            packed.matmulBf16({ a, b, c: c2, m, n, k, transB: true, accumulate, roundA });
            for (let i = 0; i < m * n; i++) {
              if (!Object.is(c1[i], c2[i])) {
                assert.fail(`${isa} threads=${threads} m=${m} k=${k} n=${n} accumulate=${accumulate} roundA=${roundA}: c[${Math.floor(i / n)}][${i % n}] streamed ${c1[i]}, packed ${c2[i]}`);
              }
            }
          }
        }
      }
    }
  }
});

// The same at the level of sampling: a frozen bf16 model decoding 11 sequences a step (two
// prompts, two LoRA adapters, one of them with a pair on the output head, the base for a third;
// sequences ending at different steps) samples the same tokens with the same log-probs whether
// a step's products stream W or pack it.
test('batched bf16 decoding: streamed and packed products sample the same tokens and log-probs', { skip: load.binding ? false : nativeSkip }, () => {
  const config = llamaConfig({ hidden: 64, layers: 2, heads: 4, kvHeads: 2, intermediate: 96, vocab: 64, context: 48 });
  const tokenizer = CharTokenizer.standard();
  const prompt = tokenizer.encode('GRID:\nS.#\n.#G\nPLAN:');
  const requests: GenerateRequest[] = [
    { promptIds: [1, ...prompt], n: 4, seed: 3, maxTokens: 14, temperature: 1, stopIds: [5], adapter: 'head' },
    { promptIds: [2, ...prompt.slice(3)], n: 4, seed: 4, maxTokens: 6, temperature: 1.2, stopIds: [], adapter: 'body' },
    { promptIds: [3, ...prompt], n: 3, seed: 5, maxTokens: 10, temperature: 0.8, stopIds: [7, 9] },
  ];
  const run = (streamRowsUpTo: number): Generation[][] => {
    const kernels = createNativeKernels({ threads: 2, streamRowsUpTo });
    const model = randomBf16Model(kernels, config, 21);
    const modules = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
    for (const [name, head] of [['head', true], ['body', false]] as const) {
      const adapter = model.addAdapter(name, { r: 4, alpha: 8, targetModules: modules, head }, 3);
      for (const [p, t] of adapter.parameters) fillNormal(t.data, Rng.derive(5, name, p), 0.2);
    }
    const sampler = new Sampler(model, tokenizer);
    const out = sampler.generate(requests);
    sampler.dispose();
    return out;
  };
  const streamed = run(64);
  const packed = run(0);
  const lengths = streamed.flat().map((g) => g.ids.length);
  assert.ok(new Set(lengths).size > 2, `sequences should end at different steps: ${lengths.join(', ')}`);
  streamed.forEach((gens, r) => gens.forEach((g, i) => {
    const p = packed[r]![i]!;
    assert.deepEqual(g.ids, p.ids, `request ${r} completion ${i}: tokens`);
    g.logprobs.forEach((lp, t) => assert.ok(Object.is(lp, p.logprobs[t]), `request ${r} completion ${i} token ${t}: ${lp} vs ${p.logprobs[t]}`));
  }));
});
