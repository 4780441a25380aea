import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { TroupeError } from '../../util/errors.js';
import { describeArchitecture } from '../model/architecture.js';
import { loadCheckpoint } from './checkpoint.js';
import { MODEL_FIXTURES } from './model-fixtures.test-helper.js';
import { parseLlamaConfig } from './parse-llama-config.js';
import { encodeSafetensors, readSafetensors } from './safetensors.js';

const SOURCE = 'm/config.json';

function fixtureConfig(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(MODEL_FIXTURES, name, 'config.json'), 'utf8')) as Record<string, unknown>;
}

/** Refused with one line that names the file and the key. */
function refuses(json: Record<string, unknown>, pattern: RegExp): void {
  assert.throws(() => parseLlamaConfig(json, SOURCE), (e: unknown) => {
    assert.ok(e instanceof TroupeError && e.category === 'checkpoint', String(e));
    assert.ok(!e.message.includes('\n'), `one line: ${e.message}`);
    assert.match(e.message, new RegExp(`^${SOURCE.replace('.', '\\.')}: `));
    assert.match(e.message, pattern);
    return true;
  });
}

test('the three families: architecture, biases, q/k norms and head_dim as transformers builds them', () => {
  const llama = parseLlamaConfig(fixtureConfig('llama3-gqa'), SOURCE);
  const qwen2 = parseLlamaConfig(fixtureConfig('qwen2-tied'), SOURCE);
  const qwen3 = parseLlamaConfig(fixtureConfig('qwen3'), SOURCE);
  assert.deepEqual([llama.architectures, qwen2.architectures, qwen3.architectures], [['LlamaForCausalLM'], ['Qwen2ForCausalLM'], ['Qwen3ForCausalLM']]);
  const arch = [llama, qwen2, qwen3].map(describeArchitecture);
  assert.deepEqual(arch.map((a) => [...a.biased].sort()), [
    ['down_proj', 'gate_proj', 'k_proj', 'o_proj', 'q_proj', 'up_proj', 'v_proj'],
    ['k_proj', 'q_proj', 'v_proj'],
    [],
  ]);
  assert.deepEqual(arch.map((a) => [a.qkNorm, a.headDim]), [[false, 8], [false, 8], [true, 16]]);
  assert.equal(qwen2.tie_word_embeddings, true);
  // Qwen3 without head_dim takes transformers' default 128, not hidden / heads.
  const { head_dim: _, ...noHeadDim } = fixtureConfig('qwen3');
  assert.equal(parseLlamaConfig(noHeadDim, SOURCE).head_dim, 128);
  assert.equal(parseLlamaConfig({ ...noHeadDim, model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'] }, SOURCE).head_dim, 8);
});

test('rope: transformers 4 (rope_theta + rope_scaling, "type" or "rope_type") and 5 (rope_parameters) read the same', () => {
  const v5 = fixtureConfig('llama3-gqa');
  const { rope_parameters: params, ...rest } = v5 as { rope_parameters: Record<string, unknown> };
  const { rope_theta: theta, ...scaling } = params;
  const fromV5 = parseLlamaConfig(v5, SOURCE);
  assert.deepEqual(fromV5.rope_scaling, { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 });
  assert.equal(fromV5.rope_theta, 10000);
  assert.deepEqual(parseLlamaConfig({ ...rest, rope_theta: theta, rope_scaling: scaling }, SOURCE), fromV5);
  const { rope_type: _, ...oldStyle } = scaling;
  assert.deepEqual(parseLlamaConfig({ ...rest, rope_theta: theta, rope_scaling: { ...oldStyle, type: 'llama3' } }, SOURCE), fromV5);
  const qwen = parseLlamaConfig({ ...fixtureConfig('qwen3'), rope_parameters: undefined, rope_theta: 5e5, rope_scaling: null }, SOURCE);
  assert.deepEqual([qwen.rope_theta, qwen.rope_scaling], [5e5, undefined]);
});

test('refusals name the file and the key: model_type, architectures, rope kinds, sliding window, MoE, activation', () => {
  const qwen3 = fixtureConfig('qwen3');
  const llama = fixtureConfig('llama3-gqa');
  refuses({ ...qwen3, model_type: 'gemma2' }, /model_type "gemma2" is not supported; Troupe runs "llama", "qwen2", "qwen3"/);
  refuses({ ...qwen3, architectures: ['Qwen3ForSequenceClassification'] }, /architectures \["Qwen3ForSequenceClassification"\] is not supported for model_type "qwen3"/);
  for (const kind of ['linear', 'dynamic', 'yarn', 'longrope']) {
    refuses({ ...qwen3, rope_parameters: { rope_type: kind, rope_theta: 1e6, factor: 4 } }, new RegExp(`rope_parameters\\.rope_type "${kind}" is not supported`));
    refuses({ ...qwen3, rope_parameters: undefined, rope_theta: 1e6, rope_scaling: { type: kind, factor: 4 } }, new RegExp(`rope_scaling\\.rope_type "${kind}" is not supported`));
  }
  refuses({ ...llama, rope_parameters: { ...(llama.rope_parameters as object), low_freq_factor: undefined } }, /rope_parameters\.low_freq_factor must be a positive number for rope_type "llama3"/);
  refuses({ ...qwen3, rope_parameters: { rope_type: 'default', rope_theta: 1e6, partial_rotary_factor: 0.5 } }, /partial_rotary_factor 0\.5 is not supported/);
  refuses({ ...qwen3, use_sliding_window: true, sliding_window: 4096 }, /use_sliding_window: true is not supported/);
  refuses({ ...qwen3, layer_types: ['full_attention', 'sliding_attention'] }, /layer_types contains "sliding_attention"/);
  refuses({ ...qwen3, num_experts: 8 }, /num_experts 8: mixture-of-experts models are not supported/);
  refuses({ ...qwen3, hidden_act: 'gelu' }, /hidden_act "gelu" is not supported/);
  refuses({ ...qwen3, head_dim: 7 }, /head_dim 7 must be even/);
  // A sliding window that is configured but off (Qwen2.5's shipped configs) is fine.
  assert.equal(parseLlamaConfig({ ...qwen3, use_sliding_window: false, sliding_window: 32768 }, SOURCE).model_type, 'qwen3');
});

test('biases and q/k norms are part of the expected tensors: a missing bias or a norm the family lacks is refused by name', () => {
  const root = mkdtempSync(join(tmpdir(), 'troupe-arch-tensors-'));
  try {
    const qwen2 = join(root, 'qwen2');
    cpSync(join(MODEL_FIXTURES, 'qwen2-tied'), qwen2, { recursive: true });
    const tensors = readSafetensors(join(qwen2, 'model.safetensors')).tensors;
    tensors.delete('model.layers.1.self_attn.v_proj.bias');
    writeFileSync(join(qwen2, 'model.safetensors'), encodeSafetensors(tensors, { format: 'pt' }));
    assert.throws(() => loadCheckpoint(qwen2), /model\.safetensors: tensor model\.layers\.1\.self_attn\.v_proj\.bias is missing \(expected shape \[16\]/);

    const relabelled = join(root, 'qwen3-as-llama');
    cpSync(join(MODEL_FIXTURES, 'qwen3'), relabelled, { recursive: true });
    writeFileSync(join(relabelled, 'config.json'), JSON.stringify({ ...fixtureConfig('qwen3'), model_type: 'llama', architectures: ['LlamaForCausalLM'] }));
    assert.throws(() => loadCheckpoint(relabelled), /unexpected tensor model\.layers\.0\.self_attn\.[qk]_norm\.weight \[16\]; it is not part of a llama model/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
