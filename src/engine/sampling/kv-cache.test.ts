import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomLlamaTensors } from '../io/random-tensors.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { LlamaInference } from './llama-inference.js';

const kernels = createReferenceKernels();
const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 48, vocab: 64, context: 48 });
const model = LlamaModel.fromTensors(kernels, config, randomLlamaTensors(config, 1, 0.25));
const prompts = [[1, 5, 9, 30, 31, 7, 12], [1, 40, 41, 3]];

/** Prefill of each prompt, then three decode steps; every logit of every call, in order. */
function decodeAll(inference: LlamaInference): Float32Array[] {
  const caches = prompts.map((p) => inference.newCache(p.length + 3));
  const out = [Float32Array.from(inference.forward(prompts.map((tokens, i) => ({ tokens, cache: caches[i]! }))))];
  for (const token of [2, 17, 33]) out.push(Float32Array.from(inference.forward(caches.map((cache) => ({ tokens: [token], cache })))));
  for (const cache of caches) cache.free();
  return out;
}

test('a recycled KV cache full of stale NaNs decodes the same bits as fresh memory', () => {
  const fresh = new LlamaInference(model);
  const expected = decodeAll(fresh);
  fresh.dispose();

  const recycled = new LlamaInference(model);
  // Leave NaN behind in arrays of exactly the sizes decodeAll takes: any read past what a
  // sequence wrote would turn its logits into NaN.
  const poisoned = prompts.map((p) => recycled.newCache(p.length + 3));
  for (const cache of poisoned) for (const a of [...cache.k, ...cache.v]) a.fill(Number.NaN);
  const buffers = new Set(poisoned.flatMap((c) => [...c.k, ...c.v].map((a) => a.buffer)));
  for (const cache of poisoned) cache.free();
  const reused = prompts.map((p) => recycled.newCache(p.length + 3));
  assert.ok(reused.every((c) => [...c.k, ...c.v].every((a) => buffers.has(a.buffer))), 'the caches reuse the poisoned arrays');
  for (const cache of reused) cache.free();

  const actual = decodeAll(recycled);
  recycled.dispose();
  assert.equal(actual.length, expected.length);
  actual.forEach((logits, i) => assert.deepEqual(new Uint8Array(logits.buffer), new Uint8Array(expected[i]!.buffer), `call ${i}`));
});

test('freeing a cache twice gives its arrays back once', () => {
  const inference = new LlamaInference(model);
  const cache = inference.newCache(8);
  cache.free();
  cache.free();
  const a = inference.newCache(8);
  const b = inference.newCache(8);
  const shared = a.k.some((x) => [...b.k, ...b.v].some((y) => y.buffer === x.buffer));
  assert.equal(shared, false, 'two live caches never share an array');
  a.free();
  b.free();
  inference.dispose();
});
