import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { BufferPool } from '../autograd/buffer-pool.js';
import { gradCheck } from '../autograd/grad-check.js';
import { logSoftmaxGather } from '../autograd/log-softmax-gather.js';
import { Tape } from '../autograd/tape.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { llamaConfig } from './llama-config.js';
import { LlamaModel } from './llama-model.js';
import type { ScoringPair } from './scoring-plan.js';
import { languageModelLoss } from './lm-loss.js';

const kernels = createReferenceKernels();
const tiny = (tied: boolean) => llamaConfig({ hidden: 8, layers: 2, heads: 4, kvHeads: 2, intermediate: 12, vocab: 11, tied });

/** Two groups (K=3 and K=1) with unequal prompt and response lengths. */
const pairs: ScoringPair[] = [
  { promptIds: [1, 2, 3], responseIds: [4, 5] },
  { promptIds: [1, 2, 3], responseIds: [6, 7, 8, 9] },
  { promptIds: [7, 7], responseIds: [2] },
  { promptIds: [1, 2, 3], responseIds: [10, 0, 3] },
];

/** Logprobs by running each prompt+response as one ordinary sequence (no sharing). */
function unsharedLogprobs(model: LlamaModel, adapter?: string): number[] {
  const out: number[] = [];
  for (const p of pairs) {
    const tape = new Tape(kernels, { grad: false });
    const seq = [...p.promptIds, ...p.responseIds];
    const logits = model.forward(tape, [seq.slice(0, -1)], { adapter });
    const lp = logSoftmaxGather(tape, logits, seq.slice(1));
    out.push(...Array.from(lp.data.subarray(p.promptIds.length - 1)));
    tape.dispose();
  }
  return out;
}

function sharedLogprobs(model: LlamaModel, adapter?: string): { values: number[]; offsets: readonly number[] } {
  const tape = new Tape(kernels, { grad: false });
  const r = model.tokenLogprobs(tape, pairs, { adapter });
  const values = Array.from(r.logprobs.data);
  tape.dispose();
  return { values, offsets: r.offsets };
}

test('tokenLogprobs with shared prompt passes equals scoring every sequence separately', () => {
  for (const tied of [false, true]) {
    const model = LlamaModel.create(kernels, tiny(tied), { seed: 3 });
    const expected = unsharedLogprobs(model);
    const { values, offsets } = sharedLogprobs(model);
    assert.deepEqual(offsets, [0, 2, 6, 7, 10]);
    assert.equal(values.length, expected.length);
    values.forEach((v, i) => assert.ok(Math.abs(v - expected[i]!) < 1e-5, `token ${i}: ${v} vs ${expected[i]}`));
  }
});

test('whole-model gradient check through shared-prompt scoring (GQA, tied and untied)', () => {
  for (const tied of [false, true]) {
    const model = LlamaModel.create(kernels, tiny(tied), { seed: 5 });
    // Larger weights than the 0.02 init so the check exercises non-trivial attention.
    const rng = new Rng(9);
    for (const [name, t] of model.parameters) if (!name.endsWith('norm.weight')) for (let i = 0; i < t.size; i++) t.data[i] = (rng.next() * 2 - 1) * 0.5;
    const inputs = [...model.parameters.values()];
    const errors = gradCheck({ kernels, inputs, build: (tape) => model.tokenLogprobs(tape, pairs).logprobs, maxElements: 24, eps: 5e-3 });
    const names = [...model.parameters.keys()];
    errors.forEach((e, i) => assert.ok(e < 1e-3, `${names[i]} (tied=${tied}): relative error ${e}`));
  }
});

test('same seed gives identical weights; another seed differs', () => {
  const a = LlamaModel.create(kernels, tiny(false), { seed: 1 });
  const b = LlamaModel.create(kernels, tiny(false), { seed: 1 });
  const c = LlamaModel.create(kernels, tiny(false), { seed: 2 });
  const w = 'model.layers.1.mlp.up_proj.weight';
  assert.deepEqual(a.parameters.get(w)!.data, b.parameters.get(w)!.data);
  assert.notDeepEqual(a.parameters.get(w)!.data, c.parameters.get(w)!.data);
  assert.deepEqual(Array.from(a.parameters.get('model.norm.weight')!.data), new Array(8).fill(1));
  const std = Math.sqrt(a.parameters.get(w)!.data.reduce((s, x) => s + x * x, 0) / a.parameters.get(w)!.size);
  assert.ok(std > 0.012 && std < 0.03, `init std ${std} should be near 0.02`);
});

test('entropy per token matches -sum p log p of the full distribution', () => {
  const model = LlamaModel.create(kernels, tiny(false), { seed: 4 });
  const tape = new Tape(kernels, { grad: false });
  const r = model.tokenLogprobs(tape, [{ promptIds: [3, 1], responseIds: [2, 5] }], { entropy: true });
  const logits = model.forward(tape, [[3, 1, 2]]);
  for (let j = 0; j < 2; j++) {
    const row = Array.from(logits.data.subarray((j + 1) * 11, (j + 2) * 11));
    const max = Math.max(...row);
    const z = row.reduce((s, x) => s + Math.exp(x - max), 0);
    const h = -row.reduce((s, x) => s + (Math.exp(x - max) / z) * (x - max - Math.log(z)), 0);
    assert.ok(Math.abs(r.entropy![j]! - h) < 1e-5, `entropy ${r.entropy![j]} vs ${h}`);
  }
  tape.dispose();
});

test('fromTensors copies weights and names a missing tensor', () => {
  const model = LlamaModel.create(kernels, tiny(false), { seed: 6 });
  const copy = LlamaModel.fromTensors(kernels, tiny(false), model.parameters);
  assert.deepEqual(unsharedLogprobs(copy), unsharedLogprobs(model));
  const missing = new Map(model.parameters);
  missing.delete('model.layers.1.self_attn.k_proj.weight');
  assert.throws(() => LlamaModel.fromTensors(kernels, tiny(false), missing), /model\.layers\.1\.self_attn\.k_proj\.weight/);
});

test('recycled (dirty) pool buffers give bit-identical losses and gradients', () => {
  const run = (pooled: boolean): number[] => {
    const model = LlamaModel.create(kernels, tiny(false), { seed: 7 });
    const pool = pooled ? new BufferPool(kernels) : undefined;
    const out: number[] = [];
    for (const rows of [[[1, 2, 3, 4, 5]], [[5, 4, 3, 2, 1]], [[1, 1, 2, 2, 3]]]) {
      const tape = new Tape(kernels, { pool });
      const loss = languageModelLoss(tape, model, rows);
      out.push(loss.data[0]!);
      tape.backward(loss);
      tape.dispose();
    }
    const g = model.parameters.get('model.layers.0.self_attn.q_proj.weight')!.grad!;
    return [...out, ...Array.from(g)];
  };
  assert.deepEqual(run(true), run(false));
});
