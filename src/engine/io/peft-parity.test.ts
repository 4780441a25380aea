/**
 * PEFT parity on the Qwen3 fixture: adapters that peft made (init_lora_weights=False) give
 * peft's log-probs through loadModelAdapter: make-model-fixtures.py's (lora_alpha 24, r 4,
 * all seven projections) and make-peft-fixtures.py's (task_type null; rsLoRA with
 * "all-linear"). An adapter Troupe trains is written with exactly the tensor names, shapes
 * and config keys peft wrote for the same base.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Tape } from '../autograd/tape.js';
import { sum } from '../autograd/reduce.js';
import { getKernels } from '../kernels/get-kernels.js';
import { LINEAR_MODULES } from '../model/llama-params.js';
import { AdamW } from '../optim/adamw.js';
import { readJsonFile } from './checkpoint.js';
import { loadModel, loadModelAdapter, saveModelAdapter } from './model-checkpoint.js';
import { autogradLogprobs, decodeLogprobs, maxAbsDifference, MODEL_FIXTURES, readReference } from './model-fixtures.test-helper.js';
import { loadLoraAdapter } from './peft-adapter.js';
import { readSafetensors } from './safetensors.js';

const BASE = join(MODEL_FIXTURES, 'qwen3');
const PEFT_ADAPTER = join(MODEL_FIXTURES, 'qwen3-lora');

function shapesOf(file: string): Map<string, readonly number[]> {
  return new Map([...readSafetensors(file).tensors].map(([name, t]) => [name, t.shape]));
}

test("qwen3 + peft's adapter (init_lora_weights=False, alpha 24, seven modules): log-probs equal peft's within 1e-4", async () => {
  const kernels = await getKernels();
  const { model } = loadModel(kernels, BASE);
  loadModelAdapter(model, PEFT_ADAPTER, 'peft');
  const ref = readReference('qwen3-lora');
  const base = readReference('qwen3');
  autogradLogprobs(model, ref.sequences, 1, 'peft').forEach((lp, b) => {
    assert.ok(maxAbsDifference(lp, ref.logprobs[b]!) < 1e-4, `tokenLogprobs seq ${b}: ${maxAbsDifference(lp, ref.logprobs[b]!)}`);
    // The adapter must matter, or this test could not tell a dropped adapter from a loaded one.
    assert.ok(maxAbsDifference(ref.logprobs[b]!, base.logprobs[b]!) > 0.05, `adapter changes seq ${b}`);
  });
  ref.sequences.forEach((ids, b) => {
    const d = maxAbsDifference(decodeLogprobs(model, ids, 3, 'peft'), ref.logprobs[b]!.slice(2));
    assert.ok(d < 1e-4, `decode seq ${b}: ${d}`);
  });
  model.dispose();
});

// Written by scripts/make-peft-fixtures.py: peft's own files for a model wrapped without a task
// type, and for rsLoRA with target_modules "all-linear" (saved as full module paths).
for (const [name, what] of [
  ['qwen3-lora-notask', 'task_type null, r 4, alpha 16, q/v/down'],
  ['qwen3-rslora', 'use_rslora (alpha / sqrt(r)), r 8, alpha 12, all-linear'],
] as const) {
  test(`qwen3 + peft's ${name} adapter (${what}): log-probs equal peft's within 1e-4`, async () => {
    const kernels = await getKernels();
    const { model } = loadModel(kernels, BASE);
    const adapter = loadModelAdapter(model, join(MODEL_FIXTURES, name), name);
    const ref = readReference(name);
    const base = readReference('qwen3');
    autogradLogprobs(model, ref.sequences, 1, name).forEach((lp, b) => {
      assert.ok(maxAbsDifference(lp, ref.logprobs[b]!) < 1e-4, `${name} seq ${b}: ${maxAbsDifference(lp, ref.logprobs[b]!)}`);
      assert.ok(maxAbsDifference(ref.logprobs[b]!, base.logprobs[b]!) > 0.05, `adapter changes seq ${b}`);
    });
    if (name === 'qwen3-rslora') {
      // The scale must be alpha / sqrt(r): with alpha / r the same tensors give other log-probs.
      assert.equal(adapter.scale, 12 / Math.sqrt(8));
      const { config, tensors } = loadLoraAdapter(join(MODEL_FIXTURES, name), model.config);
      const plain = model.addAdapter('plain', { ...config, rslora: false }, 0);
      for (const [tensorName, tensor] of plain.parameters) tensor.data.set(tensors.get(tensorName)!.data);
      const off = maxAbsDifference(autogradLogprobs(model, ref.sequences, 1, 'plain')[0]!, ref.logprobs[0]!);
      assert.ok(off > 1e-3, `alpha / r would be off by ${off}`);
    }
    model.dispose();
  });
}

test('a LoRA adapter trained on qwen3 is saved with the names, shapes and config peft writes, and reloads to the same log-probs', async () => {
  const kernels = await getKernels();
  const { model } = loadModel(kernels, BASE);
  model.freezeBase();
  const adapter = model.addAdapter('trained', { r: 4, alpha: 24, targetModules: LINEAR_MODULES }, 5);
  const optimizer = new AdamW(kernels, adapter.parameters);
  const ref = readReference('qwen3');
  for (let step = 0; step < 3; step++) {
    const tape = new Tape(kernels);
    const r = model.tokenLogprobs(tape, ref.sequences.map((ids) => ({ promptIds: ids.slice(0, 2), responseIds: ids.slice(2) })), { adapter: 'trained' });
    tape.backward(sum(tape, r.logprobs), [-1]);
    tape.dispose();
    optimizer.step(0.01);
    optimizer.zeroGrad();
  }
  const trained = autogradLogprobs(model, ref.sequences, 1, 'trained');
  assert.ok(maxAbsDifference(trained[0]!, ref.logprobs[0]!) > 1e-3, 'training moved the log-probs');

  const dir = mkdtempSync(join(tmpdir(), 'troupe-peft-'));
  try {
    saveModelAdapter(join(dir, 'adapter'), model, 'trained', { baseModelNameOrPath: BASE });
    assert.deepEqual(shapesOf(join(dir, 'adapter', 'adapter_model.safetensors')), shapesOf(join(PEFT_ADAPTER, 'adapter_model.safetensors')));
    const ours = readJsonFile(join(dir, 'adapter', 'adapter_config.json')) as Record<string, unknown>;
    const peft = readJsonFile(join(PEFT_ADAPTER, 'adapter_config.json')) as Record<string, unknown>;
    for (const key of ['peft_type', 'task_type', 'r', 'lora_alpha', 'bias', 'fan_in_fan_out', 'use_rslora', 'use_dora']) {
      assert.deepEqual(ours[key], peft[key], `adapter_config.json ${key}`);
    }
    assert.deepEqual([...(ours.target_modules as string[])].sort(), [...(peft.target_modules as string[])].sort());

    const { model: fresh } = loadModel(kernels, BASE);
    loadModelAdapter(fresh, join(dir, 'adapter'), 'reloaded');
    autogradLogprobs(fresh, ref.sequences, 1, 'reloaded').forEach((lp, b) => assert.deepEqual(lp, trained[b], `reloaded seq ${b}`));
    fresh.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  model.dispose();
});
