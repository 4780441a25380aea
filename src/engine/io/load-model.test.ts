import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { Rng } from '../../util/rng.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { Tape } from '../autograd/tape.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { createWasmKernels } from '../kernels/wasm-kernels.js';
import type { Kernels } from '../kernels/types.js';
import { llamaConfig } from '../model/llama-config.js';
import type { LlamaModel } from '../model/llama-model.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { weightToF32 } from '../weight-ops.js';
import { loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { WEIGHTS_INDEX_FILE } from './checkpoint-weights.js';
import { bf16ToF32, f32ToBf16 } from './half-float.js';
import { loadModel } from './load-model.js';
import { saveModel } from './model-checkpoint.js';
import { autogradLogprobs, decodeLogprobs, maxAbsDifference, MODEL_FIXTURES, readReference } from './model-fixtures.test-helper.js';
import { fillNormal, randomLlamaTensors } from './random-tensors.js';
import { encodeSafetensors } from './safetensors.js';
import type { NamedTensor } from './types.js';

const root = testDir('troupe-load-model-');
const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 48, vocab: 128 });
const tokenizer = CharTokenizer.standard();
const pairs = [{ promptIds: [1, 2, 3, 4], responseIds: [5, 6, 7] }, { promptIds: [9, 8], responseIds: [100, 3] }];

/** Random weights, norms included (a unit norm would hide a norm that is not loaded). */
function randomTensors(seed: number): Map<string, NamedTensor> {
  const tensors = randomLlamaTensors(config, seed, 0.2);
  for (const [name, t] of tensors) if (name.endsWith('norm.weight')) fillNormal(t.data, Rng.derive(seed, name), 0.3);
  return tensors;
}

/** A folder as saveCheckpoint writes it, its weights then re-written in `shards` files of `dtype`. */
function writeFolder(name: string, tensors: Map<string, NamedTensor>, options: { shards: number; dtype: 'F32' | 'BF16' }): string {
  const dir = join(root, name);
  saveCheckpoint(dir, { config, tensors, tokenizer }, { overwrite: true });
  if (options.shards === 1 && options.dtype === 'F32') return dir;
  rmSync(join(dir, 'model.safetensors'));
  const names = [...tensors.keys()];
  const weightMap: Record<string, string> = {};
  for (let s = 0; s < options.shards; s++) {
    const file = `model-0000${s + 1}-of-0000${options.shards}.safetensors`;
    const part = new Map(names.filter((_, i) => i % options.shards === s).map((n) => [n, { ...tensors.get(n)!, dtype: options.dtype }]));
    for (const n of part.keys()) weightMap[n] = file;
    writeFileSync(join(dir, file), encodeSafetensors(part, { format: 'pt' }));
  }
  writeFileSync(join(dir, WEIGHTS_INDEX_FILE), JSON.stringify({ metadata: { total_size: 0 }, weight_map: weightMap }));
  return dir;
}

function bf16Rounded(data: Float32Array): Float32Array {
  const bits = new Uint16Array(data.length);
  f32ToBf16(data, bits);
  const out = new Float32Array(data.length);
  bf16ToF32(bits, out);
  return out;
}

function score(model: LlamaModel, kernels: Kernels): number[] {
  const tape = new Tape(kernels, { grad: false });
  const out = Array.from(model.tokenLogprobs(tape, pairs).logprobs.data);
  tape.dispose();
  return out;
}

const tensors = randomTensors(1);
const f32Dir = writeFolder('f32', tensors, { shards: 1, dtype: 'F32' });
const bf16Dir = writeFolder('bf16-sharded', tensors, { shards: 3, dtype: 'BF16' });

test('a sharded bf16 checkpoint loads the f32 checkpoint\'s tensors rounded to bf16 (nearest even), kept bf16 when frozen', () => {
  const kernels = createReferenceKernels();
  const { model } = loadModel(kernels, bf16Dir, { frozen: true });
  assert.equal(model.baseDtype, 'bf16');
  for (const [name, t] of model.parameters) {
    const source = tensors.get(name)!.data;
    assert.equal(t.dtype, t.shape.length === 2 ? 'bf16' : 'f32', `${name} storage`);
    assert.deepEqual(weightToF32(t), bf16Rounded(source), `${name} values`);
    assert.equal(t.grad, null, `${name} has no gradient buffer`);
    source.forEach((v, i) => assert.ok(Math.abs(weightToF32(t)[i]! - v) <= Math.abs(v) * 2 ** -8, `${name}[${i}] within bf16 rounding`));
  }
  // The same shards through the float32 reader, and trainable when not frozen.
  const plain = loadCheckpoint(bf16Dir).tensors;
  assert.deepEqual(plain.get('model.layers.1.mlp.up_proj.weight')!.data, bf16Rounded(tensors.get('model.layers.1.mlp.up_proj.weight')!.data));
  const trainable = loadModel(kernels, bf16Dir).model;
  assert.equal(trainable.baseDtype, 'f32');
  assert.ok(trainable.parameters.get('model.embed_tokens.weight')!.grad !== null);
  const frozenF32 = loadModel(kernels, f32Dir, { frozen: true }).model;
  assert.equal(frozenF32.baseDtype, 'f32', "'auto' keeps a float32 checkpoint float32");
});

test('log-probs of the bf16-stored model equal the float32 model of the same bf16 values (reference and wasm)', async () => {
  for (const kernels of [createReferenceKernels({ bf16Matmul: 'exact' }), await createWasmKernels({ threads: 2, parallelThreshold: 1, bf16Matmul: 'exact' })]) {
    const bf16 = loadModel(kernels, bf16Dir, { frozen: true }).model;
    const f32 = loadModel(kernels, bf16Dir, { frozen: true, baseDtype: 'f32' }).model;
    assert.equal(f32.baseDtype, 'f32');
    const [a, b] = [score(bf16, kernels), score(f32, kernels)];
    a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) <= 1e-5, `${kernels.name} token ${i}: ${v} vs ${b[i]}`));
    const original = score(loadModel(kernels, f32Dir, { frozen: true }).model, kernels);
    assert.ok(a.some((v, i) => v !== original[i]), 'rounding to bf16 does change the numbers (the test discriminates)');
    await (kernels as { dispose?: () => Promise<void> }).dispose?.();
  }
});

test('a bf16 base takes about half the kernel heap of a float32 one (heap liveBytes)', async () => {
  const big = llamaConfig({ hidden: 256, layers: 2, heads: 4, kvHeads: 2, intermediate: 512, vocab: 2048 });
  const dir = join(root, 'heap');
  saveCheckpoint(dir, { config: big, tensors: randomLlamaTensors(big, 2, 0.02), tokenizer }, { overwrite: true });
  const kernels = await createWasmKernels({ threads: 1 });
  const measure = (options: Parameters<typeof loadModel>[2]): number => {
    const before = kernels.heap.liveBytes;
    const { model } = loadModel(kernels, dir, options);
    const bytes = kernels.heap.liveBytes - before;
    model.dispose();
    return bytes;
  };
  const f32 = measure({ frozen: true });
  const bf16 = measure({ frozen: true, baseDtype: 'bf16' });
  const trainable = measure({});
  const parameters = [...randomLlamaTensors(big, 2).values()].reduce((n, t) => n + t.data.length, 0);
  assert.ok(Math.abs(f32 - 4 * parameters) < 4096, `float32 frozen: ${f32} bytes for ${parameters} parameters`);
  assert.ok(bf16 / f32 > 0.49 && bf16 / f32 < 0.51, `bf16 ${bf16} vs f32 ${f32} bytes`);
  assert.ok(trainable / f32 > 1.99, `trainable float32 has gradient buffers too: ${trainable}`);
  await kernels.dispose();
});

const refusal = (pattern: RegExp) => (error: unknown) => error instanceof TroupeError && pattern.test(error.message) && !error.message.includes('\n');

test('refusals are one line naming the file and key: missing shard, tensor absent from its shard, corruption, dtype, shape, training bf16', () => {
  const kernels = createReferenceKernels();
  const variant = (name: string, edit: (dir: string) => void): string => {
    const dir = writeFolder(name, tensors, { shards: 3, dtype: 'BF16' });
    edit(dir);
    return dir;
  };
  const index = (dir: string) => JSON.parse(readFileSync(join(dir, WEIGHTS_INDEX_FILE), 'utf8')) as { weight_map: Record<string, string> };

  const missing = variant('missing-shard', (dir) => rmSync(join(dir, 'model-00002-of-00003.safetensors')));
  assert.throws(() => loadModel(kernels, missing, { frozen: true }), refusal(/model\.safetensors\.index\.json: weight_map puts \S+ in shard model-00002-of-00003\.safetensors but .*model-00002-of-00003\.safetensors does not exist/));

  const absent = variant('absent', (dir) => {
    const map = index(dir);
    map.weight_map['model.layers.9.mlp.up_proj.weight'] = 'model-00001-of-00003.safetensors';
    writeFileSync(join(dir, WEIGHTS_INDEX_FILE), JSON.stringify(map));
  });
  assert.throws(() => loadModel(kernels, absent, { frozen: true }), refusal(/model-00001-of-00003\.safetensors: tensor model\.layers\.9\.mlp\.up_proj\.weight is listed in .*index\.json but absent from this shard/));

  const stray = variant('stray', (dir) => {
    const map = index(dir);
    delete map.weight_map['model.norm.weight'];
    writeFileSync(join(dir, WEIGHTS_INDEX_FILE), JSON.stringify(map));
  });
  assert.throws(() => loadModel(kernels, stray, { frozen: true }), refusal(/holds tensor model\.norm\.weight but .*index\.json does not list it/));

  const truncated = variant('truncated', (dir) => {
    const path = join(dir, 'model-00003-of-00003.safetensors');
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 10));
  });
  assert.throws(() => loadModel(kernels, truncated, { frozen: true }), refusal(/model-00003-of-00003\.safetensors is not a valid safetensors file: tensors need \d+ data bytes but the file has \d+ \(truncated file\?\)/));

  const badOffsets = variant('bad-offsets', (dir) => {
    const path = join(dir, 'model-00001-of-00003.safetensors');
    const bytes = readFileSync(path);
    const text = bytes.toString('latin1').replace('"data_offsets":[0,', '"data_offsets":[2,');
    writeFileSync(path, Buffer.from(text, 'latin1'));
  });
  assert.throws(() => loadModel(kernels, badOffsets, { frozen: true }), refusal(/model-00001-of-00003\.safetensors is not a valid safetensors file: tensor "\S+" .*needs \d+ bytes but data_offsets span/));

  const i64 = variant('i64', (dir) => {
    const path = join(dir, 'model-00002-of-00003.safetensors');
    const text = readFileSync(path).toString('latin1');
    writeFileSync(path, Buffer.from(text.replace('"dtype":"BF16"', '"dtype":"BOOL"'), 'latin1'));
  });
  assert.throws(() => loadModel(kernels, i64, { frozen: true }), refusal(/model-00002-of-00003\.safetensors: tensor "\S+" has dtype BOOL; Troupe reads F32, F16, BF16/));

  const wrongShape = join(root, 'wrong-shape');
  const reshaped = new Map(tensors);
  reshaped.set('model.layers.0.self_attn.k_proj.weight', { shape: [8, 32], data: new Float32Array(8 * 32) });
  saveCheckpoint(wrongShape, { config, tensors: randomTensors(1), tokenizer }, { overwrite: true });
  writeFileSync(join(wrongShape, 'model.safetensors'), encodeSafetensors(reshaped, { format: 'pt' }));
  assert.throws(() => loadModel(kernels, wrongShape), refusal(/wrong-shape\/model\.safetensors: tensor model\.layers\.0\.self_attn\.k_proj\.weight has shape \[8, 32\] but the config implies \[16, 32\]/));

  assert.throws(() => loadModel(kernels, bf16Dir, { baseDtype: 'bf16' }), refusal(/a bf16 base cannot train; load it with frozen: true/));
  assert.throws(() => loadModel(kernels, join(root, 'nowhere'), { frozen: true }), refusal(/model folder .*nowhere does not exist/));
});

test('the transformers-made Qwen3 fixture saved in bf16 and sharded streams in, stays bf16 when frozen, and scores like transformers', async () => {
  const kernels = await createWasmKernels({ threads: 1, bf16Matmul: 'exact' });
  const dir = join(MODEL_FIXTURES, 'qwen3-bf16');
  const ref = readReference('qwen3-bf16');
  for (const options of [{ frozen: true }, {}] as const) {
    const { model } = loadModel(kernels, dir, options);
    assert.equal(model.baseDtype, options.frozen ? 'bf16' : 'f32');
    autogradLogprobs(model, ref.sequences, 1).forEach((lp, b) => assert.ok(maxAbsDifference(lp, ref.logprobs[b]!) < 1e-4, `${model.baseDtype} tokenLogprobs seq ${b}`));
    ref.sequences.forEach((ids, b) => assert.ok(maxAbsDifference(decodeLogprobs(model, ids, 3), ref.logprobs[b]!.slice(2)) < 1e-4, `${model.baseDtype} decode seq ${b}`));
    model.dispose();
  }
  await kernels.dispose();
});

test('saving a bf16 base writes BF16 tensors that reload bit-identical', () => {
  const kernels = createReferenceKernels();
  const { model } = loadModel(kernels, bf16Dir, { frozen: true });
  const dir = join(root, 'resaved');
  saveModel(dir, model, tokenizer, { overwrite: true });
  const header = readFileSync(join(dir, 'model.safetensors')).toString('latin1');
  assert.match(header, /"model\.embed_tokens\.weight":\{"dtype":"BF16"/);
  assert.match(header, /"model\.norm\.weight":\{"dtype":"F32"/);
  const again = loadModel(kernels, dir, { frozen: true }).model;
  for (const [name, t] of model.parameters) assert.deepEqual(weightToF32(again.parameters.get(name)!), weightToF32(t), name);
});
