import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { llamaConfig } from '../model/llama-config.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import type { Tokenizer } from '../tokenizer/types.js';
import { expectedTensorShapes, loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { randomLlamaTensors } from './random-tensors.js';
import { encodeSafetensors } from './safetensors.js';

const config = llamaConfig({ hidden: 8, layers: 2, heads: 2, kvHeads: 1, intermediate: 12, vocab: 64, context: 32 });

function withTempDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-ckpt-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const checkpointError = (pattern: RegExp) => (error: unknown) =>
  error instanceof TroupeError && error.category === 'checkpoint' && pattern.test(error.message);

test('expected tensors follow the HF names and [out, in] shapes, lm_head only when untied', () => {
  const shapes = expectedTensorShapes(config);
  assert.equal(shapes.size, 1 + 2 * 9 + 1 + 1);
  assert.deepEqual(shapes.get('model.layers.1.self_attn.k_proj.weight'), [4, 8]);
  assert.deepEqual(shapes.get('model.layers.0.self_attn.o_proj.weight'), [8, 8]);
  assert.deepEqual(shapes.get('model.layers.0.mlp.down_proj.weight'), [8, 12]);
  assert.deepEqual(shapes.get('lm_head.weight'), [64, 8]);
  assert.equal(expectedTensorShapes({ ...config, tie_word_embeddings: true }).has('lm_head.weight'), false);
});

test('save then load gives the same config, tensors and tokenizer', () => {
  withTempDir((root) => {
    const dir = join(root, 'model');
    const tensors = randomLlamaTensors(config, 5);
    saveCheckpoint(dir, { config, tensors, tokenizer: CharTokenizer.standard() });
    assert.deepEqual(readdirSync(root), ['model']); // no temp folders left behind
    assert.deepEqual(readdirSync(dir).sort(), ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']);
    const json = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    assert.deepEqual(json.architectures, ['LlamaForCausalLM']);
    assert.equal(json.eos_token_id, 2);
    const loaded = loadCheckpoint(dir);
    assert.deepEqual(loaded.config, { ...config, bos_token_id: 1, eos_token_id: 2 });
    assert.equal(loaded.tensors.size, tensors.size);
    for (const [name, tensor] of tensors) assert.deepEqual(loaded.tensors.get(name)!.data, tensor.data, name);
    assert.deepEqual(loaded.tokenizer.encode('AB#'), CharTokenizer.standard().encode('AB#'));
  });
});

test('loading names the missing or misshapen tensor and the bad config field', () => {
  withTempDir((root) => {
    const dir = join(root, 'model');
    saveCheckpoint(dir, { config, tensors: randomLlamaTensors(config, 1), tokenizer: CharTokenizer.standard() });
    const weights = join(dir, 'model.safetensors');
    const tensors = randomLlamaTensors(config, 1);
    tensors.delete('model.layers.1.mlp.up_proj.weight');
    writeFileSync(weights, encodeSafetensors(tensors));
    assert.throws(() => loadCheckpoint(dir), checkpointError(/model\.layers\.1\.mlp\.up_proj\.weight is missing \(expected shape \[12, 8\]/));
    tensors.set('model.layers.1.mlp.up_proj.weight', { shape: [8, 12], data: new Float32Array(96) });
    writeFileSync(weights, encodeSafetensors(tensors));
    assert.throws(() => loadCheckpoint(dir), checkpointError(/up_proj\.weight has shape \[8, 12\] but the config implies \[12, 8\]/));
    tensors.set('model.layers.1.mlp.up_proj.weight', { shape: [12, 8], data: new Float32Array(96) });
    tensors.set('model.layers.1.mlp.extra', { shape: [1], data: new Float32Array(1) });
    writeFileSync(weights, encodeSafetensors(tensors));
    assert.throws(() => loadCheckpoint(dir), checkpointError(/unexpected tensor model\.layers\.1\.mlp\.extra/));

    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, num_key_value_heads: 3 }));
    assert.throws(() => loadCheckpoint(dir), checkpointError(/config\.json: num_attention_heads 2 is not divisible by num_key_value_heads 3/));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, hidden_size: undefined }));
    assert.throws(() => loadCheckpoint(dir), checkpointError(/hidden_size must be a positive integer/));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, rope_scaling: { type: 'linear', factor: 2 } }));
    assert.throws(() => loadCheckpoint(dir), checkpointError(/config\.json: rope_scaling\.rope_type "linear" is not supported/));
    assert.throws(() => loadCheckpoint(join(root, 'nope')), checkpointError(/nope does not exist/));
  });
});

test('a failure mid-write leaves no folder, and an existing folder untouched', () => {
  withTempDir((root) => {
    const failing: Tokenizer = Object.assign(CharTokenizer.standard(), {
      toTokenizerJson(): Record<string, unknown> {
        throw new Error('disk full (simulated)');
      },
    });
    const dir = join(root, 'model');
    const tensors = randomLlamaTensors(config, 2);
    assert.throws(() => saveCheckpoint(dir, { config, tensors, tokenizer: failing }), /disk full/);
    assert.equal(existsSync(dir), false);
    assert.deepEqual(readdirSync(root), []);

    saveCheckpoint(dir, { config, tensors, tokenizer: CharTokenizer.standard() });
    const before = readFileSync(join(dir, 'model.safetensors'));
    const other = randomLlamaTensors(config, 3);
    assert.throws(() => saveCheckpoint(dir, { config, tensors: other, tokenizer: failing }, { overwrite: true }), /disk full/);
    assert.deepEqual(readFileSync(join(dir, 'model.safetensors')), before);
    assert.deepEqual(readdirSync(root), ['model']);

    saveCheckpoint(dir, { config, tensors: other, tokenizer: CharTokenizer.standard() }, { overwrite: true });
    assert.deepEqual(loadCheckpoint(dir).tensors.get('model.norm.weight')!.data, other.get('model.norm.weight')!.data);
    assert.notDeepEqual(readFileSync(join(dir, 'model.safetensors')), before);
    assert.deepEqual(readdirSync(root), ['model']);
  });
});

test('saving refuses a non-empty folder without overwrite, bad tensors, and a too-small vocab', () => {
  withTempDir((root) => {
    const dir = join(root, 'busy');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const tensors = randomLlamaTensors(config, 1);
    assert.throws(() => saveCheckpoint(dir, { config, tensors, tokenizer: CharTokenizer.standard() }), /busy already exists and is not empty/);
    assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'mine');
    const small = llamaConfig({ hidden: 8, layers: 1, heads: 2, intermediate: 8, vocab: 10 });
    assert.throws(
      () => saveCheckpoint(join(root, 'small'), { config: small, tensors: randomLlamaTensors(small, 1), tokenizer: CharTokenizer.standard() }),
      /tokenizer has 64 tokens but the model's vocab_size is 10; use a vocab of at least 64/,
    );
    tensors.delete('model.norm.weight');
    assert.throws(() => saveCheckpoint(join(root, 'x'), { config, tensors, tokenizer: CharTokenizer.standard() }), /model\.norm\.weight is missing/);
    assert.equal(existsSync(join(root, 'x')), false);
  });
});
