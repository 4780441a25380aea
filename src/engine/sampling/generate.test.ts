import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../util/rng.js';
import { Tape } from '../autograd/tape.js';
import { fillNormal, randomLlamaTensors } from '../io/random-tensors.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { Sampler } from './generate.js';
import { LlamaInference } from './llama-inference.js';
import { sampleToken } from './sample-token.js';
import type { GenerateRequest, Generation } from './types.js';

const kernels = createReferenceKernels();
const tokenizer = CharTokenizer.standard();
const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 48, vocab: 64, context: 48 });

/** Larger-than-default weights so distributions are peaked and tests discriminate. */
function makeModel(seed = 1): LlamaModel {
  return LlamaModel.fromTensors(kernels, config, randomLlamaTensors(config, seed, 0.25));
}

function withAdapter(model: LlamaModel): LlamaModel {
  const adapter = model.addAdapter('role', { r: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'o_proj', 'down_proj'] }, 3);
  for (const [name, t] of adapter.parameters) fillNormal(t.data, Rng.derive(5, name), 0.2);
  return model;
}

function learnerLogprobs(model: LlamaModel, promptIds: readonly number[], responses: readonly (readonly number[])[], adapter?: string): number[][] {
  const tape = new Tape(kernels, { grad: false });
  const scored = model.tokenLogprobs(tape, responses.map((responseIds) => ({ promptIds, responseIds })), { adapter });
  const out = responses.map((_, b) => Array.from(scored.logprobs.data.subarray(scored.offsets[b]!, scored.offsets[b + 1]!)));
  tape.dispose();
  return out;
}

function assertClose(actual: readonly number[], expected: readonly number[], tol: number, label: string): void {
  assert.equal(actual.length, expected.length, label);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]!) <= tol, `${label} token ${i}: ${a} vs ${expected[i]}`));
}

const prompt = tokenizer.encode('GRID:\nS.#\n.#G\nPLAN:');
const base: GenerateRequest = { promptIds: [1, ...prompt], n: 4, seed: 11, maxTokens: 12, temperature: 1, stopIds: [] };

test('cached prefill + decode logits equal the full forward without cache (batched segments)', () => {
  for (const model of [makeModel(), withAdapter(makeModel())]) {
    const adapter = model.adapters.size > 0 ? 'role' : undefined;
    const inference = new LlamaInference(model);
    // Prefill 2 tokens, then a 3-token segment (several new rows over a cache), then 1 token.
    const seqs = [[1, 5, 9, 30, 31, 7], [1, 40, 41, 3, 2, 60]];
    const caches = seqs.map(() => inference.newCache(8));
    for (const [from, to] of [[0, 2], [2, 5], [5, 6]] as const) {
      const logits = Float32Array.from(inference.forward(seqs.map((s, i) => ({ tokens: s.slice(from, to), cache: caches[i]!, adapter }))));
      seqs.forEach((s, i) => {
        const tape = new Tape(kernels, { grad: false });
        const full = model.forward(tape, [s.slice(0, to)], { adapter });
        assertClose(Array.from(logits.subarray(i * 64, (i + 1) * 64)), Array.from(full.data.subarray((to - 1) * 64, to * 64)), 1e-5, `seq ${i} after ${to}`);
        tape.dispose();
      });
    }
    inference.dispose();
  }
});

test('recorded logprobs equal the learner tokenLogprobs (with and without LoRA, shared prompts)', () => {
  for (const model of [makeModel(), withAdapter(makeModel())]) {
    const adapter = model.adapters.size > 0 ? 'role' : undefined;
    const sampler = new Sampler(model, tokenizer);
    const [gens] = sampler.generate([{ ...base, adapter, temperature: 0.8, topP: 0.9 }]);
    const expected = learnerLogprobs(model, base.promptIds, gens!.map((g) => g.ids), adapter);
    gens!.forEach((g, i) => assertClose(g.logprobs, expected[i]!, 1e-5, `continuation ${i}`));
    assert.ok(gens!.some((g) => g.ids.join() !== gens![0]!.ids.join()), 'continuations should differ');
    sampler.dispose();
  }
});

test('deterministic per seed; batching and request mix do not change results', () => {
  const model = makeModel();
  const sampler = new Sampler(model, tokenizer);
  const other: GenerateRequest = { ...base, promptIds: [1, ...tokenizer.encode('MATH:12+3=')], n: 3, seed: 5 };
  const a = sampler.generate([base])[0]!;
  const b = sampler.generate([other, base], { maxBatch: 3 })[1]!;
  const c = sampler.generate([base], { maxBatch: 1 })[0]!;
  assert.deepEqual(b.map((g) => g.ids), a.map((g) => g.ids));
  assert.deepEqual(c.map((g) => g.ids), a.map((g) => g.ids));
  b.forEach((g, i) => assertClose(g.logprobs, a[i]!.logprobs, 1e-6, `continuation ${i}`));
  const d = sampler.generate([{ ...base, seed: 12 }])[0]!;
  assert.notDeepEqual(d.map((g) => g.ids), a.map((g) => g.ids));
  sampler.dispose();
});

test('shared prefill gives the same tokens and logprobs as prefilling every continuation separately', () => {
  const model = withAdapter(makeModel(2));
  const request: GenerateRequest = { ...base, adapter: 'role', topK: 10 };
  const shared = new Sampler(model, tokenizer).generate([request])[0]!;
  // Reference loop: one cache per continuation, prompt prefilled for each, same Rng streams.
  const inference = new LlamaInference(model);
  for (let i = 0; i < request.n; i++) {
    const rng = Rng.derive(request.seed, i);
    const cache = inference.newCache(64);
    let logits = Float32Array.from(inference.forward([{ tokens: request.promptIds, cache, adapter: 'role' }]));
    const ids: number[] = [];
    const logprobs: number[] = [];
    for (let t = 0; t < request.maxTokens; t++) {
      const choice = sampleToken(logits, { temperature: 1, topK: 10, topP: 1 }, rng);
      ids.push(choice.id);
      logprobs.push(choice.logprob);
      if (t + 1 < request.maxTokens) logits = Float32Array.from(inference.forward([{ tokens: [choice.id], cache, adapter: 'role' }]));
    }
    assert.deepEqual(shared[i]!.ids, ids);
    assertClose(shared[i]!.logprobs, logprobs, 1e-6, `continuation ${i}`);
    assert.equal(shared[i]!.finishReason, 'length');
  }
  inference.dispose();
});

test('top-k = 1 equals greedy decoding', () => {
  const sampler = new Sampler(makeModel(3), tokenizer);
  const greedy = sampler.generate([{ ...base, n: 1, temperature: 0 }])[0]![0]!;
  const topk = sampler.generate([{ ...base, n: 2, temperature: 1.5, topK: 1, seed: 99 }])[0]!;
  for (const g of topk) assert.deepEqual(g.ids, greedy.ids);
  assert.ok(new Set(greedy.ids).size > 1);
});

test('stop strings cut the text before the stop; ids keep the generated tokens', () => {
  const sampler = new Sampler(makeModel(4), tokenizer);
  const full = sampler.generate([{ ...base, n: 1, maxTokens: 20, stop: [] }])[0]![0]!;
  // A stop string taken from the unconstrained output: two characters starting at index 5.
  const stop = full.text.slice(5, 7);
  const first = full.text.indexOf(stop);
  const cut = sampler.generate([{ ...base, n: 1, maxTokens: 20, stop: ['@@NEVER', stop] }])[0]![0]!;
  assert.equal(cut.finishReason, 'stop');
  assert.equal(cut.stopString, stop);
  assert.equal(cut.text, full.text.slice(0, first));
  // ids run up to the token that completed the stop string (special tokens have no text).
  let end = 0;
  while (!tokenizer.decode(full.ids.slice(0, end), { skipSpecial: true }).includes(stop)) end++;
  assert.deepEqual(cut.ids, full.ids.slice(0, end));
  assert.deepEqual(cut.logprobs, full.logprobs.slice(0, end));
  assert.equal(full.finishReason, 'length');
  assert.equal(full.ids.length, 20);
});

test('stop ids end a continuation (kept in ids, not in text); context and prompt limits', () => {
  const sampler = new Sampler(makeModel(4), tokenizer);
  const full = sampler.generate([{ ...base, n: 1, temperature: 0, maxTokens: 10 }])[0]![0]!;
  const stopId = full.ids[3]!;
  const firstAt = full.ids.indexOf(stopId);
  const stopped = sampler.generate([{ ...base, n: 1, temperature: 0, maxTokens: 10, stopIds: [stopId] }])[0]![0]!;
  assert.deepEqual(stopped.ids, full.ids.slice(0, firstAt + 1));
  assert.equal(stopped.text, tokenizer.decode(full.ids.slice(0, firstAt), { skipSpecial: true }));
  assert.equal(stopped.finishReason, 'stop');

  const long: GenerateRequest = { ...base, n: 2, promptIds: Array.from({ length: 44 }, (_, i) => 4 + (i % 50)), maxTokens: 100 };
  const [limited, tooLong, empty] = sampler.generate([long, { ...long, promptIds: Array(49).fill(5) }, { ...long, promptIds: [] }]) as Generation[][];
  for (const g of limited!) {
    assert.equal(g.finishReason, 'length');
    assert.equal(g.ids.length, 48 - 44); // context 48
  }
  assert.equal(tooLong![0]!.finishReason, 'error');
  assert.match(tooLong![0]!.error!, /49 tokens exceeds the model's context of 48/);
  assert.match(empty![1]!.error!, /empty prompt/);
  assert.throws(() => sampler.generate([{ ...base, topP: 0 }]), /topP must be in \(0, 1\]/);
  assert.throws(() => sampler.generate([{ ...base, adapter: 'nope' }]), /adapter 'nope'/);
});

test('with the WASM kernels too, sampled logprobs equal the learner logprobs to 1e-5', async () => {
  const { createWasmKernels } = await import('../kernels/wasm-kernels.js');
  const wasm = await createWasmKernels({ threads: 1 });
  try {
    const model = LlamaModel.create(wasm, config, { seed: 6 });
    const adapter = model.addAdapter('role', { r: 4, alpha: 8, targetModules: ['q_proj', 'up_proj'] }, 2);
    for (const [name, t] of adapter.parameters) fillNormal(t.data, Rng.derive(8, name), 0.05);
    const sampler = new Sampler(model, tokenizer);
    for (const name of [undefined, 'role']) {
      const [gens] = sampler.generate([{ ...base, n: 3, maxTokens: 30, adapter: name }]);
      const tape = new Tape(wasm, { grad: false });
      const scored = model.tokenLogprobs(tape, gens!.map((g) => ({ promptIds: base.promptIds, responseIds: g.ids })), { adapter: name });
      gens!.forEach((g, b) => assertClose(g.logprobs, Array.from(scored.logprobs.data.subarray(scored.offsets[b]!, scored.offsets[b + 1]!)), 1e-5, `continuation ${b}`));
      tape.dispose();
    }
    sampler.dispose();
    model.dispose();
  } finally {
    await wasm.dispose();
  }
});
