import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../../util/rng.js';
import { llamaConfig } from '../model/llama-config.js';
import { expectedLoraShapes, loadLoraAdapter, loraScale, saveLoraAdapter, type LoraAdapterConfig } from './peft-adapter.js';
import { fillNormal } from './random-tensors.js';
import { readSafetensors } from './safetensors.js';
import { shapeSize, type NamedTensor } from './types.js';

const base = llamaConfig({ hidden: 8, layers: 2, heads: 2, kvHeads: 1, intermediate: 12, vocab: 16 });
const lora: LoraAdapterConfig = { r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'], baseModelNameOrPath: '../base' };

function adapterTensors(seed: number): Map<string, NamedTensor> {
  const tensors = new Map<string, NamedTensor>();
  for (const [name, shape] of expectedLoraShapes(base, lora)) {
    tensors.set(name, { shape, data: fillNormal(new Float32Array(shapeSize(shape)), Rng.derive(seed, name), 1) });
  }
  return tensors;
}

test('adapter shapes: A is [r, in], B is [out, r]; scale alpha / r', () => {
  const shapes = expectedLoraShapes(base, lora);
  assert.equal(shapes.size, 2 * 3 * 2);
  assert.deepEqual(shapes.get('base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight'), [2, 8]);
  assert.deepEqual(shapes.get('base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight'), [4, 2]);
  assert.deepEqual(shapes.get('base_model.model.model.layers.1.mlp.down_proj.lora_A.weight'), [2, 12]);
  assert.equal(loraScale(lora), 2);
});

test('PEFT folder round trip with PEFT tensor names and adapter_config fields', () => {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-peft-'));
  try {
    const out = join(dir, 'adapter');
    const tensors = adapterTensors(3);
    saveLoraAdapter(out, { config: lora, tensors }, base);
    const json = JSON.parse(readFileSync(join(out, 'adapter_config.json'), 'utf8'));
    assert.equal(json.peft_type, 'LORA');
    assert.equal(json.task_type, 'CAUSAL_LM');
    assert.equal(json.r, 2);
    assert.equal(json.lora_alpha, 4);
    assert.deepEqual(json.target_modules, ['q_proj', 'v_proj', 'down_proj']);
    assert.equal(json.base_model_name_or_path, '../base');
    const raw = readSafetensors(join(out, 'adapter_model.safetensors'));
    assert.deepEqual(raw.metadata, { format: 'pt' });
    assert.ok(raw.tensors.has('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight'));
    assert.ok(raw.tensors.has('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight'));

    const loaded = loadLoraAdapter(out, base);
    assert.deepEqual(loaded.config, lora);
    for (const [name, tensor] of tensors) assert.deepEqual(loaded.tensors.get(name)!.data, tensor.data);

    const other = llamaConfig({ hidden: 16, layers: 2, heads: 2, intermediate: 12, vocab: 16 });
    assert.throws(() => loadLoraAdapter(out, other), /q_proj\.lora_A\.weight has shape \[2, 8\] but r=2 and the base model imply \[2, 16\]/);
    writeFileSync(join(out, 'adapter_config.json'), JSON.stringify({ ...json, use_dora: true }));
    assert.throws(() => loadLoraAdapter(out, base), /use_dora: true is not supported/);
    writeFileSync(join(out, 'adapter_config.json'), JSON.stringify({ ...json, target_modules: ['qkv'] }));
    assert.throws(() => loadLoraAdapter(out, base), /target_modules must be a non-empty list of q_proj/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
