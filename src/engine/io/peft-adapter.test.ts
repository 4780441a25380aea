import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../../util/rng.js';
import { llamaConfig } from '../model/llama-config.js';
import { loraScaleOf } from '../model/lora.js';
import { expectedLoraShapes, loadLoraAdapter, parseAdapterConfig, saveLoraAdapter, type LoraAdapterConfig } from './peft-adapter.js';
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
  assert.equal(loraScaleOf(lora), 2);
  assert.equal(loraScaleOf({ ...lora, r: 4, rslora: true }), 2, 'rsLoRA: alpha / sqrt(r)');
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
    assert.throws(() => loadLoraAdapter(out, base), /target_modules must be "all-linear" or a non-empty list of q_proj/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The keys peft 0.21 writes for a plain LoRA on a model wrapped without a task type. */
const PEFT_WRITTEN = {
  peft_type: 'LORA', task_type: null, r: 4, lora_alpha: 8, target_modules: ['q_proj', 'v_proj'], bias: 'none', lora_bias: false,
  use_dora: false, use_rslora: false, use_qalora: false, fan_in_fan_out: false, modules_to_save: null, layers_to_transform: null,
  layers_pattern: null, rank_pattern: {}, alpha_pattern: {}, exclude_modules: null, layer_replication: null, trainable_token_indices: null,
  target_parameters: null, alora_invocation_tokens: null, use_bdlora: null, loftq_config: {}, init_lora_weights: false, base_model_name_or_path: null,
};

test('adapter_config.json as peft writes it: task_type null or CAUSAL_LM, modules_to_save empty, "all-linear", rsLoRA', () => {
  assert.deepEqual(parseAdapterConfig(PEFT_WRITTEN), { r: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'], baseModelNameOrPath: '' });
  assert.equal(parseAdapterConfig({ ...PEFT_WRITTEN, task_type: 'CAUSAL_LM', modules_to_save: [] }).r, 4);
  const { task_type: _omitted, ...withoutTaskType } = PEFT_WRITTEN;
  assert.equal(parseAdapterConfig(withoutTaskType).alpha, 8);
  assert.equal(parseAdapterConfig({ ...PEFT_WRITTEN, target_modules: 'all-linear' }).targetModules.length, 7);
  // What peft saves after expanding "all-linear": full module paths, one per layer.
  const expanded = ['model.layers.0.mlp.down_proj', 'model.layers.1.mlp.down_proj', 'model.layers.0.self_attn.q_proj', 'model.layers.1.self_attn.q_proj'];
  assert.deepEqual(parseAdapterConfig({ ...PEFT_WRITTEN, target_modules: expanded }).targetModules, ['down_proj', 'q_proj']);
  const rs = parseAdapterConfig({ ...PEFT_WRITTEN, use_rslora: true });
  assert.equal(rs.rslora, true);
  assert.equal(loraScaleOf(rs), 4, 'alpha 8 / sqrt(r 4)');
});

test('peft options Troupe does not train are refused, naming the field and the value', () => {
  const refusals: ReadonlyArray<[Record<string, unknown>, RegExp]> = [
    [{ use_dora: true }, /adapter_config\.json: use_dora: true is not supported \(it needs DoRA/],
    [{ modules_to_save: ['lm_head'] }, /modules_to_save: \["lm_head"\] is not supported/],
    [{ layers_to_transform: [0] }, /layers_to_transform: \[0\] is not supported \(it needs LoRA on some layers only/],
    [{ layers_pattern: 'layers' }, /layers_pattern: "layers" is not supported/],
    [{ rank_pattern: { q_proj: 8 } }, /rank_pattern: \{"q_proj":8\} is not supported/],
    [{ bias: 'all' }, /bias: "all" is not supported/],
    [{ task_type: 'SEQ_CLS' }, /task_type "SEQ_CLS" is not supported; Troupe runs causal language models \(task_type "CAUSAL_LM" or null\)/],
    [{ use_rslora: 'yes' }, /use_rslora must be true or false, got "yes"/],
    [{ target_modules: 'all' }, /target_modules must be "all-linear" or a non-empty list of q_proj.*; got "all"/],
    [{ target_modules: ['model.layers.0.lm_head'] }, /target_modules must be .*; got \["model\.layers\.0\.lm_head"\]/],
  ];
  for (const [change, message] of refusals) assert.throws(() => parseAdapterConfig({ ...PEFT_WRITTEN, ...change }), message, JSON.stringify(change));
});

test('an rsLoRA adapter is written with use_rslora true and reloads as rsLoRA', () => {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-peft-'));
  try {
    const rs: LoraAdapterConfig = { ...lora, rslora: true };
    saveLoraAdapter(join(dir, 'a'), { config: rs, tensors: adapterTensors(4) }, base);
    assert.equal(JSON.parse(readFileSync(join(dir, 'a', 'adapter_config.json'), 'utf8')).use_rslora, true);
    assert.deepEqual(loadLoraAdapter(join(dir, 'a'), base).config, rs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an adapter with a head pair (train_unembed) saves lm_head as a PEFT target and loads back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-peft-head-'));
  try {
    const withHead: LoraAdapterConfig = { ...lora, head: true };
    const shapes = expectedLoraShapes(base, withHead);
    assert.deepEqual(shapes.get('base_model.model.lm_head.lora_A.weight'), [2, 8]);
    assert.deepEqual(shapes.get('base_model.model.lm_head.lora_B.weight'), [16, 2]);
    const tensors = new Map([...shapes].map(([name, shape]) => [name, { shape, data: fillNormal(new Float32Array(shapeSize(shape)), Rng.derive(5, name), 1) }]));
    const out = join(dir, 'adapter');
    saveLoraAdapter(out, { config: withHead, tensors }, base);
    assert.deepEqual(JSON.parse(readFileSync(join(out, 'adapter_config.json'), 'utf8')).target_modules, ['q_proj', 'v_proj', 'down_proj', 'lm_head']);
    const loaded = loadLoraAdapter(out, base);
    assert.deepEqual(loaded.config, withHead);
    assert.deepEqual(loaded.tensors.get('base_model.model.lm_head.lora_B.weight')!.data, tensors.get('base_model.model.lm_head.lora_B.weight')!.data);
    assert.equal(parseAdapterConfig({ peft_type: 'LORA', r: 2, lora_alpha: 4, target_modules: ['lm_head'] }).head, true, 'the head alone is an adapter');
    assert.equal(parseAdapterConfig({ peft_type: 'LORA', r: 2, lora_alpha: 4, target_modules: ['q_proj'] }).head, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
