import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomLlamaTensors } from '../io/random-tensors.js';
import { loadNativeBinding } from '../kernels/native-binding.js';
import { createNativeKernels } from '../kernels/native-kernels.js';
import { nativeSkip } from '../kernels/native-skip.test-helper.js';
import type { Kernels } from '../kernels/types.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { LlamaInference } from './llama-inference.js';

// The native backend's cacheAttention (a forward call's attention in one call) against
// llama-inference.ts's own per-head loop on the same kernels: the same products and softmax
// calls, so the same bits. Grouped-query heads (4 over 2), prompts of different lengths, caches
// with room to spare. Without the addon the test is skipped with the reason.
const binding = loadNativeBinding().binding;
const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 48, vocab: 64, context: 48 });
const prompts = [[1, 5, 9, 30, 31, 7, 12], [1, 40, 41, 3], [1, 2]];

/** Every logit of a prefill and four decode steps (the shortest sequence stops after two). */
function decodeAll(kernels: Kernels): Uint8Array[] {
  const model = LlamaModel.fromTensors(kernels, config, randomLlamaTensors(config, 3, 0.25));
  const inference = new LlamaInference(model);
  const caches = prompts.map((p) => inference.newCache(p.length + 6));
  const bytes = (logits: Float32Array) => new Uint8Array(Float32Array.from(logits).buffer);
  const out = [bytes(inference.forward(prompts.map((tokens, i) => ({ tokens, cache: caches[i]! }))))];
  for (const [step, token] of [2, 17, 33, 8].entries()) {
    const live = step < 2 ? caches : caches.slice(0, 2);
    out.push(bytes(inference.forward(live.map((cache) => ({ tokens: [token], cache })))));
  }
  for (const cache of caches) cache.free();
  inference.dispose();
  model.dispose();
  return out;
}

test('native attention over KV caches in one call = the per-head loop, bit for bit (every ISA, 1 and 2 threads)', { skip: nativeSkip }, () => {
  for (const isa of binding!.isas) {
    for (const threads of [1, 2]) {
      const fused = createNativeKernels({ threads, isa, parallelFrom: 0 });
      assert.equal(typeof fused.cacheAttention, 'function');
      const loop: Kernels = { ...fused, cacheAttention: undefined };
      let calls = 0;
      const counted: Kernels = { ...fused, cacheAttention: (args) => (calls++, fused.cacheAttention!(args)) };
      const expected = decodeAll(loop);
      const got = decodeAll(counted);
      const where = `${isa}, ${threads} thread(s)`;
      assert.equal(calls, 5 * config.num_hidden_layers, `${where}: the prefill and every decode step of every layer went through the one call`);
      assert.equal(got.length, expected.length);
      got.forEach((logits, i) => assert.deepEqual(logits, expected[i], `${where}: call ${i}`));
    }
  }
});
