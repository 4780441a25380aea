import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { gradCheck } from '../autograd/grad-check.js';
import { Tape } from '../autograd/tape.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { llamaConfig } from './llama-config.js';
import { LlamaModel } from './llama-model.js';
import { linearWeightName, type LinearModule } from './llama-params.js';
import { loraParameterName } from './lora.js';

const kernels = createReferenceKernels();
const config = llamaConfig({ hidden: 8, layers: 2, heads: 2, kvHeads: 1, intermediate: 12, vocab: 9 });
const pairs = [
  { promptIds: [1, 2], responseIds: [3, 4, 5] },
  { promptIds: [1, 2], responseIds: [6] },
];
const targets: LinearModule[] = ['q_proj', 'v_proj', 'down_proj'];

function score(model: LlamaModel, adapter?: string): number[] {
  const tape = new Tape(kernels, { grad: false });
  const values = Array.from(model.tokenLogprobs(tape, pairs, { adapter }).logprobs.data);
  tape.dispose();
  return values;
}

function randomizeB(model: LlamaModel, name: string, seed: number): void {
  const rng = new Rng(seed);
  for (const [n, t] of model.adapters.get(name)!.parameters) if (n.includes('lora_B')) for (let i = 0; i < t.size; i++) t.data[i] = (rng.next() * 2 - 1) * 0.3;
}

test('LoRA tensors have PEFT names and shapes; a fresh adapter is the identity', () => {
  const model = LlamaModel.create(kernels, config, { seed: 1 });
  const adapter = model.addAdapter('coder', { r: 3, alpha: 6, targetModules: targets }, 7);
  assert.equal(adapter.scale, 2);
  assert.deepEqual(adapter.parameters.get('base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight')!.shape, [3, 8]);
  assert.deepEqual(adapter.parameters.get('base_model.model.model.layers.0.mlp.down_proj.lora_B.weight')!.shape, [8, 3]);
  assert.equal(adapter.parameters.size, 2 * 2 * targets.length);
  assert.deepEqual(score(model, 'coder'), score(model));
});

test('an adapter equals merging W + (alpha/r) B A into the base; adapters are chosen per call', () => {
  const model = LlamaModel.create(kernels, config, { seed: 2 });
  model.addAdapter('plan', { r: 2, alpha: 3, targetModules: targets }, 1);
  model.addAdapter('tool', { r: 2, alpha: 3, targetModules: ['k_proj'] }, 2);
  randomizeB(model, 'plan', 10);
  randomizeB(model, 'tool', 11);
  const base = score(model);
  const plan = score(model, 'plan');
  const tool = score(model, 'tool');
  assert.notDeepEqual(plan, base);
  assert.notDeepEqual(tool, plan);
  assert.deepEqual(score(model), base, 'the base is untouched by adapters');

  const merged = LlamaModel.fromTensors(kernels, config, model.parameters);
  const adapter = model.adapters.get('plan')!;
  for (let layer = 0; layer < 2; layer++) {
    for (const m of targets) {
      const w = merged.parameters.get(linearWeightName(layer, m))!;
      const a = adapter.parameters.get(loraParameterName(layer, m, 'A'))!;
      const b = adapter.parameters.get(loraParameterName(layer, m, 'B'))!;
      kernels.matmul({ a: b.data, b: a.data, c: w.data, m: b.shape[0]!, n: a.shape[1]!, k: 2, accumulate: false, transA: false });
      // w currently holds B A; add the base back in with the scale applied.
      const base = model.parameters.get(linearWeightName(layer, m))!;
      for (let i = 0; i < w.size; i++) w.data[i] = base.data[i]! + adapter.scale * w.data[i]!;
    }
  }
  score(merged).forEach((v, i) => assert.ok(Math.abs(v - plan[i]!) < 1e-5, `token ${i}: merged ${v} vs adapter ${plan[i]}`));
});

test('with a frozen base only the adapter gets gradients, and they match finite differences', () => {
  const model = LlamaModel.create(kernels, config, { seed: 3 });
  // Larger base weights than the 0.02 init, so every adapter gradient is well above float32 noise.
  // (Seed 6 of the adapter: with some seeds one of the 12 probed elements has a gradient small
  // enough that float32 finite differences miss the 1e-3 bound; the analytic gradient is fine.)
  const rng = new Rng(13);
  for (const [n, t] of model.parameters) if (!n.endsWith('norm.weight')) for (let i = 0; i < t.size; i++) t.data[i] = (rng.next() * 2 - 1) * 0.5;
  model.addAdapter('a', { r: 2, alpha: 4, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] }, 6);
  randomizeB(model, 'a', 12);
  model.freezeBase();
  const params = model.trainableParameters('a');
  const errors = gradCheck({ kernels, inputs: [...params.values()], build: (tape) => model.tokenLogprobs(tape, pairs, { adapter: 'a' }).logprobs, maxElements: 12, eps: 5e-3 });
  const names = [...params.keys()];
  // Float32 finite differences: the worst element sits near 1e-3 from rounding noise alone
  // (8.7e-4 or 1.0e-3 depending on where loraLinear applies the scale); a wrong gradient is O(1).
  errors.forEach((e, i) => assert.ok(e < 2e-3, `${names[i]}: relative error ${e}`));
  for (const t of model.parameters.values()) assert.equal(t.grad, null);
  assert.equal(model.trainableParameters().size, 0);
  assert.ok([...params.values()].every((t) => t.grad && kernels.sumSquares(t.grad) > 0));
});

test('unknown adapters and bad LoRA configs are named in the error', () => {
  const model = LlamaModel.create(kernels, config, { seed: 4 });
  model.addAdapter('x', { r: 1, alpha: 1, targetModules: ['q_proj'] }, 1);
  assert.throws(() => score(model, 'y'), /unknown LoRA adapter 'y'; available: x/);
  assert.throws(() => model.addAdapter('z', { r: 1, alpha: 1, targetModules: ['qkv' as LinearModule] }, 1), /unknown LoRA target module 'qkv'/);
  assert.throws(() => model.addAdapter('z', { r: 0, alpha: 1, targetModules: ['q_proj'] }, 1), /rank r/);
});
