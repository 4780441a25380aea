import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../util/repo-root.test-helper.js';
import { Rng } from '../util/rng.js';
import { TroupeError } from '../util/errors.js';
import { loadCheckpoint } from '../engine/io/checkpoint.js';
import { loadModel, saveModelAdapter } from '../engine/io/model-checkpoint.js';
import { fillNormal } from '../engine/io/random-tensors.js';
import { referenceLogprobs } from '../engine/io/reference-llama.js';
import type { NamedTensor } from '../engine/io/types.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { modelInit, modelLogprobs } from './model-command.js';

function withTempDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-model-cmd-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function assertClose(actual: readonly number[], expected: readonly number[], tol: number): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]!) <= tol, `token ${i}: ${a} vs ${expected[i]} (tolerance ${tol})`));
}

test('model init + model logprobs agree with the independent reference forward to 1e-4', () => {
  withTempDir((root) => {
    const shapes = [
      { hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 48, vocab: 70, seed: 3, tied: false },
      { hidden: 24, layers: 3, heads: 2, kvHeads: 1, intermediate: 40, vocab: 64, seed: 9, tied: true },
    ];
    for (const [i, shape] of shapes.entries()) {
      const out = join(root, `m${i}`);
      const { parameters } = modelInit({ ...shape, out, context: 64 });
      assert.ok(parameters > 0);
      const ids = [1, 20, 33, 4, 5, 61, 62, 63, 0, 17, 2, 40];
      const { logprobs } = modelLogprobs(out, { ids });
      assert.equal(logprobs.length, ids.length - 1);
      const expected = referenceLogprobs(loadCheckpoint(out), ids);
      assertClose(logprobs, expected, 1e-4);
      // Scores must depend on the model: an init with another seed disagrees.
      const other = join(root, `m${i}-other`);
      modelInit({ ...shape, seed: shape.seed + 1, out: other, context: 64 });
      assert.ok(modelLogprobs(other, { ids }).logprobs.some((lp, j) => Math.abs(lp - logprobs[j]!) > 1e-3));
    }
  });
});

test('--text tokenizes with the folder tokenizer; --bos prepends BOS', () => {
  withTempDir((root) => {
    const out = join(root, 'm');
    modelInit({ hidden: 16, layers: 1, heads: 2, intermediate: 16, vocab: 64, seed: 1, out });
    const checkpoint = loadCheckpoint(out);
    const text = 'S.#G\n12';
    const plain = modelLogprobs(out, { text });
    assert.deepEqual(plain.ids, checkpoint.tokenizer.encode(text));
    const withBos = modelLogprobs(out, { text, bos: true });
    assert.deepEqual(withBos.ids, [1, ...plain.ids]);
    assertClose(withBos.logprobs, referenceLogprobs(checkpoint, withBos.ids), 1e-4);
    assert.throws(() => modelLogprobs(out, { ids: plain.ids, bos: true }), /--bos prepends BOS to --text; with --ids, put the BOS id first/);
  });
});

test('a LoRA adapter folder changes logprobs exactly as merging W + (alpha/r) B A does', () => {
  withTempDir((root) => {
    const base = join(root, 'base');
    modelInit({ hidden: 16, layers: 2, heads: 2, kvHeads: 1, intermediate: 24, vocab: 64, seed: 4, out: base });
    const kernels = createReferenceKernels();
    const { model } = loadModel(kernels, base);
    const adapter = model.addAdapter('a', { r: 2, alpha: 6, targetModules: ['q_proj', 'v_proj', 'up_proj'] }, 1);
    for (const [name, t] of adapter.parameters) fillNormal(t.data, Rng.derive(2, name), 0.3); // B != 0
    saveModelAdapter(join(root, 'adapter'), model, 'a', { baseModelNameOrPath: base });

    const merged = new Map<string, NamedTensor>(loadCheckpoint(base).tensors);
    for (const [name, a] of adapter.parameters) {
      if (!name.endsWith('lora_A.weight')) continue;
      const b = adapter.parameters.get(name.replace('lora_A', 'lora_B'))!;
      const baseName = name.replace('base_model.model.', '').replace('.lora_A', '');
      const w = merged.get(baseName)!;
      const [out, inner] = w.shape as [number, number];
      const data = Float32Array.from(w.data);
      for (let o = 0; o < out; o++) for (let i = 0; i < inner; i++) for (let k = 0; k < 2; k++) data[o * inner + i]! += 3 * b.data[o * 2 + k]! * a.data[k * inner + i]!;
      merged.set(baseName, { shape: w.shape, data });
    }
    model.dispose();
    const ids = [1, 9, 8, 7, 30, 31, 2];
    const withAdapter = modelLogprobs(base, { ids, adapter: join(root, 'adapter') }).logprobs;
    assertClose(withAdapter, referenceLogprobs({ config: loadCheckpoint(base).config, tensors: merged }, ids), 1e-4);
    assert.ok(withAdapter.some((lp, j) => Math.abs(lp - modelLogprobs(base, { ids }).logprobs[j]!) > 1e-3));
  });
});

test('clear input errors: small vocab, ids outside the vocabulary, too few tokens', () => {
  withTempDir((root) => {
    const isInput = (pattern: RegExp) => (e: unknown) => e instanceof TroupeError && e.category === 'input' && pattern.test(e.message);
    assert.throws(() => modelInit({ hidden: 16, layers: 1, heads: 2, intermediate: 16, vocab: 32, seed: 1, out: join(root, 'x') }), isInput(/--vocab 32 is smaller than the tokenizer's 64 tokens; use --vocab 64/));
    const textFile = join(root, 'corpus.txt');
    writeFileSync(textFile, 'abcab\n');
    const out = join(root, 'small');
    modelInit({ hidden: 16, layers: 1, heads: 2, intermediate: 16, vocab: 8, seed: 1, out, tokenizerFromText: textFile });
    assert.equal(loadCheckpoint(out).tokenizer.vocabSize, 8); // 4 specials + "\n", a, b, c
    assert.throws(() => modelLogprobs(out, { ids: [1, 8] }), isInput(/token id 8 is outside the model's vocabulary 0\.\.7/));
    assert.throws(() => modelLogprobs(out, { ids: [1] }), isInput(/need at least 2 tokens/));
  });
});

test('model logprobs on the transformers-made Llama 3 / Qwen2 / Qwen3 folders (and a peft adapter) gives their reference numbers', () => {
  const fixtures = join(repoRoot(), 'src', 'engine', 'io', 'fixtures', 'models');
  const reference = (name: string) => JSON.parse(readFileSync(join(fixtures, name, 'reference.json'), 'utf8')) as { sequences: number[][]; logprobs: number[][] };
  for (const name of ['llama3-gqa', 'qwen2-tied', 'qwen3']) {
    const ref = reference(name);
    assertClose(modelLogprobs(join(fixtures, name), { ids: ref.sequences[1]! }).logprobs, ref.logprobs[1]!, 1e-4);
  }
  const lora = reference('qwen3-lora');
  assertClose(modelLogprobs(join(fixtures, 'qwen3'), { ids: lora.sequences[1]!, adapter: join(fixtures, 'qwen3-lora') }).logprobs, lora.logprobs[1]!, 1e-4);
});

test('the troupe command refuses an unsupported rope type in one line naming the file and key, exit code 2', () => {
  withTempDir((root) => {
    const dir = join(root, 'yarn');
    cpSync(join(repoRoot(), 'src', 'engine', 'io', 'fixtures', 'models', 'qwen3'), dir, { recursive: true });
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, rope_parameters: { rope_type: 'yarn', rope_theta: 1e6, factor: 4 } }));
    const here = fileURLToPath(import.meta.url);
    const main = join(dirname(here), here.endsWith('.ts') ? 'main.ts' : 'main.js');
    const args = here.endsWith('.ts') ? ['--import', 'tsx', main] : [main];
    const result = spawnSync(process.execPath, [...args, 'model', 'logprobs', dir, '--ids', '1,2,3'], { encoding: 'utf8' });
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^troupe: checkpoint error: .*yarn[/\\]config\.json: rope_parameters\.rope_type "yarn" is not supported/);
  });
});
