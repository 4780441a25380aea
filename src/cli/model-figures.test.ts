import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadNativeBinding } from '../engine/kernels/native-binding.js';
import { createNativeKernels } from '../engine/kernels/native-kernels.js';
import type { Kernels } from '../engine/kernels/types.js';
import { createWasmKernels } from '../engine/kernels/wasm-kernels.js';
import { qwen3Shape, randomBf16Model } from '../engine/model/random-bf16-model.js';
import { measureModelFigures, type ModelFigures } from './model-figures.js';

// A small Qwen3-like bf16 model; kernels that split every product however small, so 3 threads
// really share each product (bench/thread-scaling-model.ts relies on the digests to say that
// thread counts computed the same numbers).
const CONFIG = { ...qwen3Shape({ layers: 2, vocab: 96 }), hidden_size: 64, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 16, intermediate_size: 128 };
const SIZES = { prompt: 4, newTokens: 4, wideBatch: 3, prefill: 12, trainBatch: 2, trainContext: 10, trainSteps: 2 };

type Make = (threads: number) => Promise<Kernels & { dispose?: () => Promise<void> }>;
const backends: Array<[string, Make]> = [['wasm', (threads) => createWasmKernels({ threads, parallelThreshold: 1, adaptiveSplit: false, matvecSplitFrom: 0 })]];
if (loadNativeBinding().binding) backends.push(['native', async (threads) => createNativeKernels({ threads, parallelFrom: 0, rowsParallelFrom: 0 })]);

async function figures(make: Make, threads: number, seed: number): Promise<ModelFigures> {
  const kernels = await make(threads);
  const model = randomBf16Model(kernels, CONFIG, seed);
  try {
    return measureModelFigures(model, kernels, SIZES);
  } finally {
    model.dispose();
    await kernels.dispose?.();
  }
}

for (const [name, make] of backends) {
  test(`model figures on ${name}: the same digests on 1 and 3 threads, other digests for other weights`, async () => {
    const one = await figures(make, 1, 1);
    const three = await figures(make, 3, 1);
    assert.deepEqual(three.digests, one.digests, 'decode, prefill and LoRA computed the same bits on 3 threads as on 1');
    for (const key of ['decode_b1_tok_s', 'decode_b16_tok_s', 'prefill_tok_s', 'lora_train_tok_s', 'lora_step_ms'] as const) {
      assert.ok(Number.isFinite(one[key]) && one[key] > 0, `${key} is a positive number, got ${one[key]}`);
    }
    const other = await figures(make, 1, 2);
    for (const part of ['decode', 'prefill', 'lora'] as const) {
      assert.notEqual(other.digests[part], one.digests[part], `the ${part} digest depends on the weights`);
      assert.match(one.digests[part], /^[0-9a-f]{16}$/);
    }
  });
}
