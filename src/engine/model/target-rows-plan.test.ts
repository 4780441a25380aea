import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { logSoftmaxGather } from '../autograd/log-softmax-gather.js';
import { Tape } from '../autograd/tape.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { llamaConfig } from './llama-config.js';
import { LlamaModel } from './llama-model.js';
import { planSharedTargetRows, planTargetRows, type TargetRow } from './target-rows-plan.js';

const kernels = createReferenceKernels();
const config = llamaConfig({ hidden: 8, layers: 2, heads: 2, kvHeads: 1, intermediate: 12, vocab: 11 });

test('consecutive rows with a common start share a prefix; each row keeps at least one token of its own', () => {
  const plan = planSharedTargetRows([
    { tokens: [5, 6, 7, 1], targets: [6, 7, 1, 2] },
    { tokens: [5, 6, 7, 3, 4], targets: [6, 7, 3, 4, 9] },
    { tokens: [9, 2], targets: [2, 2] },
  ])!;
  assert.equal(plan.groups, 2);
  assert.deepEqual(plan.groupOf, [0, 0, 1]);
  assert.deepEqual(plan.promptLengths, [3, 2], 'the first two share [5, 6, 7]; the lone row runs whole in the prompt pass');
  assert.deepEqual(Array.from(plan.promptTokens), [5, 6, 7, 9, 2, 0]);
  assert.equal(plan.responseSeqLen, 2);
  assert.deepEqual(Array.from(plan.responseTokens), [1, 0, 3, 4, 0, 0]);
  assert.deepEqual(Array.from(plan.responsePositions), [3, 4, 3, 4, 2, 3]);
  // Rows of [prompt pass (2 x 3); response pass (3 x 2)]: prefix positions read the prompt pass.
  assert.deepEqual(Array.from(plan.headRows), [0, 1, 2, 6, 0, 1, 2, 8, 9, 3, 4]);
  assert.deepEqual(Array.from(plan.targets), [6, 7, 1, 2, 6, 7, 3, 4, 9, 2, 2]);
  assert.deepEqual(plan.offsets, [0, 4, 9, 11]);
});

test('rows that share nothing (or only a short start) get no shared plan; a row without one target per token is refused', () => {
  assert.equal(planSharedTargetRows([{ tokens: [1, 2, 3, 4], targets: [2, 3, 4, 5] }, { tokens: [1, 9, 9, 9], targets: [9, 9, 9, 9] }]), undefined);
  assert.throws(() => planTargetRows([{ tokens: [1, 2], targets: [2] }]), /target row 0 has 2 tokens but 1 targets/);
  assert.throws(() => planSharedTargetRows([{ tokens: [1, 2], targets: [2, 3] }, { tokens: [1, 2, 3], targets: [2] }]), /target row 1 has 3 tokens but 1 targets/);
});

function rowsWithGroups(rng: Rng): TargetRow[] {
  const rows: TargetRow[] = [];
  for (let g = 0; g < 3; g++) {
    const prompt = Array.from({ length: 3 + g }, () => 1 + Math.floor(rng.next() * 10));
    for (let k = 0; k < 3; k++) {
      const tokens = [...prompt, ...Array.from({ length: 1 + ((g + k) % 3) }, () => 1 + Math.floor(rng.next() * 10))];
      rows.push({ tokens, targets: tokens.map(() => Math.floor(rng.next() * 11)) });
    }
  }
  rows.push({ tokens: [4], targets: [7] });
  return rows;
}

test('targetLogprobs (shared prefixes, one batch) equals scoring each row alone with full logits, values and adapter gradients', () => {
  const model = LlamaModel.create(kernels, config, { seed: 3 });
  model.addAdapter('a', { r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'] }, 5);
  const rng = new Rng(9);
  for (const [, t] of model.adapters.get('a')!.parameters) for (let i = 0; i < t.size; i++) t.data[i] = (rng.next() * 2 - 1) * 0.3;
  model.freezeBase();
  const rows = rowsWithGroups(new Rng(4));
  assert.ok(planSharedTargetRows(rows) !== undefined, 'the rows are laid out with shared prefixes');
  const weights = rows.map((r) => r.tokens.map((_, t) => 0.5 + t));
  const params = [...model.trainableParameters('a').values()];
  const gradients = () => params.map((p) => Array.from(p.grad!));
  const zero = () => params.forEach((p) => p.grad!.fill(0));

  zero();
  const alone: number[] = [];
  rows.forEach((row, b) => {
    const tape = new Tape(kernels);
    const lp = logSoftmaxGather(tape, model.forward(tape, [row.tokens], { adapter: 'a' }), row.targets);
    alone.push(...lp.data);
    tape.backward(lp, Float32Array.from(weights[b]!));
    tape.dispose();
  });
  const aloneGrads = gradients();

  zero();
  const tape = new Tape(kernels);
  const scored = model.targetLogprobs(tape, rows, { adapter: 'a' });
  const batched = Array.from(scored.logprobs.data);
  tape.backward(scored.logprobs, Float32Array.from(weights.flat()));
  tape.dispose();
  assert.deepEqual(scored.offsets, [0, ...rows.map((_, b) => rows.slice(0, b + 1).reduce((n, r) => n + r.tokens.length, 0))]);
  batched.forEach((v, i) => assert.ok(Math.abs(v - alone[i]!) < 1e-5, `logprob ${i}: ${v} vs ${alone[i]}`));
  gradients().forEach((g, p) => g.forEach((v, i) => assert.ok(Math.abs(v - aloneGrads[p]![i]!) < 1e-4 * (1 + Math.abs(v)), `gradient ${p}[${i}]: ${v} vs ${aloneGrads[p]![i]}`)));
});
