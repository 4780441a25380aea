import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { checkThreads, threadsFromEnv } from '../../util/thread-count.js';
import { llamaConfig } from '../model/llama-config.js';
import { timeTrainStep } from '../train-step-bench.js';
import { newRng, randomArray } from './conformance-helpers.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';
import type { Kernels } from './types.js';
import { createWasmKernels } from './wasm-kernels.js';
import { nativeSkip } from './native-skip.test-helper.js';

// Results must not depend on the thread count: every kernel that splits work gives the same
// bits on 1, 2, 3 and 4 threads (oversubscribed on a 2-core machine: this checks correctness,
// not speed), with every product split however small.

test('TROUPE_THREADS: a whole number from 1 to 256; unset, the cores this process may use', () => {
  assert.equal(threadsFromEnv({}), Math.min(256, availableParallelism()));
  assert.equal(threadsFromEnv({ TROUPE_THREADS: '' }), Math.min(256, availableParallelism()));
  assert.equal(threadsFromEnv({ TROUPE_THREADS: '1' }), 1);
  assert.equal(threadsFromEnv({ TROUPE_THREADS: '7' }), 7);
  assert.equal(threadsFromEnv({ TROUPE_THREADS: '256' }), 256);
  for (const bad of ['0', '257', '2.5', '-1', 'four', ' 2']) {
    assert.throws(() => threadsFromEnv({ TROUPE_THREADS: bad }), new RegExp(`TROUPE_THREADS must be a whole number from 1 to 256, got '${bad}'; unset it`));
  }
  assert.throws(() => checkThreads(0), /kernel threads must be a whole number from 1 to 256, got 0/);
  assert.equal(checkThreads(3), 3);
});

type Make = (threads: number) => Promise<Kernels & { dispose?: () => Promise<void> }>;
const backends: Array<[string, Make]> = [
  ['wasm', (threads) => createWasmKernels({ threads, parallelThreshold: 1, adaptiveSplit: false, matvecSplitFrom: 0 })],
];
if (loadNativeBinding().binding) {
  backends.push(['native', async (threads) => createNativeKernels({ threads, parallelFrom: 0, rowsParallelFrom: 0 })]);
}

/** m, k, n, transA, transB: tall and wide C, LoRA-thin sides, 1-3 row products, odd edges. */
const SHAPES: ReadonlyArray<readonly [number, number, number, boolean, boolean]> = [
  [200, 300, 40, false, true], [36, 270, 300, true, false], [130, 64, 16, false, false], [8, 96, 333, false, true],
  [1, 256, 1000, false, true], [1, 200, 1000, false, false], [3, 130, 517, false, false], [2, 64, 260, false, true],
  [97, 33, 5, false, false], [64, 48, 64, true, true],
];

/** Every output of a battery of split kernels, in order, for one kernels object. */
function battery(kernels: Kernels): Float32Array[] {
  const rng = newRng('thread-count');
  const outputs: Float32Array[] = [];
  for (const [m, k, n, transA, transB] of SHAPES) {
    const a = randomArray(rng, m * k);
    const b = randomArray(rng, k * n);
    const c = randomArray(rng, m * n);
    kernels.matmul({ a, b, c, m, n, k, transA, transB, accumulate: m % 2 === 0 });
    outputs.push(c);
    if (transA) continue;
    const b16 = Uint16Array.from(b, (x) => new Uint32Array(Float32Array.of(x).buffer)[0]! >>> 16);
    for (const roundA of [false, true]) {
      const c16 = new Float32Array(m * n);
      kernels.matmulBf16({ a, b: b16, c: c16, m, n, k, transB, roundA });
      outputs.push(c16);
    }
  }
  const [rows, vocab] = [37, 301];
  const logits = randomArray(rng, rows * vocab, 4);
  const entropy = new Float32Array(rows);
  kernels.logSoftmax(logits, rows, vocab, entropy);
  const targets = Int32Array.from({ length: rows }, (_, r) => (r * 7) % vocab);
  const grad = logits.slice();
  kernels.logSoftmaxGatherBackward(grad, rows, vocab, targets, randomArray(rng, rows));
  outputs.push(logits, entropy, grad);
  return outputs;
}

/** Losses of two training steps (forward, backward with attention, clip, AdamW) of a small model. */
function trainLosses(kernels: Kernels): readonly number[] {
  const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 64, vocab: 40, context: 24 });
  return timeTrainStep({ kernels, config, batch: 2, context: 16, steps: 2, warmup: 0, seed: 3 }).losses;
}

for (const [name, make] of backends) {
  test(`${name}: split kernels and training steps give the same bits on 1, 2, 3 and 4 threads`, async () => {
    const one = await make(1);
    const expected = battery(one);
    const expectedLosses = trainLosses(one);
    await one.dispose?.();
    for (const threads of [2, 3, 4]) {
      const kernels = await make(threads);
      assert.equal(kernels.threads, threads);
      // Twice: chunks are claimed by whichever thread is free, so repeat with other timings.
      for (let repeat = 0; repeat < 2; repeat++) {
        const got = battery(kernels);
        got.forEach((out, i) => assert.deepEqual(out, expected[i], `${name}, ${threads} threads: output ${i} differs from 1 thread`));
      }
      assert.deepEqual(trainLosses(kernels), expectedLosses, `${name}, ${threads} threads: training losses`);
      await kernels.dispose?.();
    }
  });
}

// The split must not change a sum on any instruction set (their vector widths differ: 16, 8
// and 4 floats), so the other instruction sets this CPU runs get the kernel battery on 3 threads.
const binding = loadNativeBinding().binding;
for (const isa of binding?.isas.slice(1) ?? []) {
  test(`native-${isa}: split kernels give the same bits on 1 and 3 threads`, () => {
    const expected = battery(createNativeKernels({ threads: 1, isa }));
    const got = battery(createNativeKernels({ threads: 3, isa, parallelFrom: 0, rowsParallelFrom: 0 }));
    got.forEach((out, i) => assert.deepEqual(out, expected[i], `native-${isa}, 3 threads: output ${i} differs from 1 thread`));
  });
}

test('native setThreads: later products use the new count, with the same bits; a count out of range is refused', { skip: nativeSkip }, () => {
  const kernels = createNativeKernels({ threads: 4, parallelFrom: 0, rowsParallelFrom: 0 });
  const rng = newRng('setThreads');
  const [m, k, n] = [96, 200, 130];
  const a = randomArray(rng, m * k);
  const b = randomArray(rng, k * n);
  const product = () => {
    const c = new Float32Array(m * n);
    kernels.matmul({ a, b, c, m, k, n });
    return c;
  };
  const onFour = product();
  kernels.setThreads!(1);
  assert.equal(kernels.threads, 1);
  assert.deepEqual(product(), onFour);
  kernels.setThreads!(3);
  assert.equal(kernels.threads, 3);
  assert.deepEqual(product(), onFour);
  assert.throws(() => kernels.setThreads!(0), /kernel threads must be a whole number from 1 to 256, got 0/);
  assert.equal(kernels.threads, 3);
});
