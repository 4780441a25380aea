/**
 * Parity with transformers: tiny random checkpoints that transformers itself wrote
 * (scripts/make-model-fixtures.py; every weight random, biases and norms included) give the
 * log-probs transformers computed for them, within 1e-4, through the autograd model
 * (LlamaModel.tokenLogprobs, prompt prefix shared or not), the KV-cache decode path
 * (LlamaInference) and the float64 oracle (reference-llama.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Kernels } from '../kernels/types.js';
import { getKernels } from '../kernels/get-kernels.js';
import { LlamaModel } from '../model/llama-model.js';
import { loadModel, saveModel } from './model-checkpoint.js';
import { weightToF32 } from '../weight-ops.js';
import { autogradLogprobs, decodeLogprobs, maxAbsDifference, MODEL_FIXTURES, readReference } from './model-fixtures.test-helper.js';
import { referenceLogprobs } from './reference-llama.js';

const TOLERANCE = 1e-4;

const FIXTURES: ReadonlyArray<{ name: string; what: string; load: (kernels: Kernels, dir: string) => LlamaModel }> = [
  { name: 'llama3-gqa', what: 'Llama 3 rope scaling, GQA, attention and mlp biases', load: (k, dir) => loadModel(k, dir).model },
  { name: 'qwen2-tied', what: 'Qwen2 q/k/v biases, tied head', load: (k, dir) => loadModel(k, dir).model },
  { name: 'qwen3', what: 'Qwen3 q/k norms, head_dim 16 != 32 / 4', load: (k, dir) => loadModel(k, dir).model },
  { name: 'qwen3-bf16', what: 'Qwen3 in bf16, sharded, loaded as float32', load: (k, dir) => loadModel(k, dir, { baseDtype: 'f32' }).model },
  {
    name: 'qwen3-bf16',
    what: 'the same, loaded frozen with the base kept in bf16 (norms and biases stay float32)',
    load: (k, dir) => {
      const { model } = loadModel(k, dir, { frozen: true });
      assert.equal(model.parameters.get('model.layers.0.self_attn.q_proj.weight')!.dtype, 'bf16');
      return model;
    },
  },
];

for (const fixture of FIXTURES) {
  test(`${fixture.name} (${fixture.what}): log-probs equal transformers' within ${TOLERANCE}`, async () => {
    const kernels = await getKernels('auto', 'exact');
    const model = fixture.load(kernels, join(MODEL_FIXTURES, fixture.name));
    const ref = readReference(fixture.name);
    const worst = (label: string, got: readonly number[], want: readonly number[]) => {
      const d = maxAbsDifference(got, want);
      assert.ok(d < TOLERANCE, `${fixture.name} ${label}: max |difference| ${d}`);
    };
    // Whole sequences as responses to a one-token prompt, then a longer shared-prefix split.
    autogradLogprobs(model, ref.sequences, 1).forEach((lp, b) => worst(`tokenLogprobs seq ${b}`, lp, ref.logprobs[b]!));
    autogradLogprobs(model, ref.sequences, 4).forEach((lp, b) => worst(`tokenLogprobs split 4 seq ${b}`, lp, ref.logprobs[b]!.slice(3)));
    ref.sequences.forEach((ids, b) => {
      worst(`decode seq ${b}`, decodeLogprobs(model, ids, 1), ref.logprobs[b]!);
      worst(`prefill 5 + decode seq ${b}`, decodeLogprobs(model, ids, 5), ref.logprobs[b]!.slice(4));
    });
    const tensors = new Map([...model.parameters].map(([n, t]) => [n, { shape: t.shape, data: weightToF32(t) }]));
    worst('float64 oracle seq 0', referenceLogprobs({ config: model.config, tensors }, ref.sequences[0]!), ref.logprobs[0]!);
    model.dispose();
  });
}

test('saving a loaded Llama 3 / Qwen2 / Qwen3 writes a config.json of the same architecture that reloads to the same log-probs', async () => {
  const kernels = await getKernels('auto', 'exact');
  const root = mkdtempSync(join(tmpdir(), 'troupe-arch-'));
  try {
    for (const name of ['llama3-gqa', 'qwen2-tied', 'qwen3']) {
      const { model, tokenizer } = loadModel(kernels, join(MODEL_FIXTURES, name));
      saveModel(join(root, name), model, tokenizer);
      const written = JSON.parse(readFileSync(join(root, name, 'config.json'), 'utf8')) as Record<string, unknown>;
      const original = JSON.parse(readFileSync(join(MODEL_FIXTURES, name, 'config.json'), 'utf8')) as Record<string, unknown>;
      for (const key of ['architectures', 'model_type', 'tie_word_embeddings', 'num_key_value_heads', 'attention_bias', 'mlp_bias']) {
        assert.deepEqual(written[key] ?? false, original[key] ?? false, `${name} config.json ${key}`);
      }
      // Always written, since Qwen3's default (128) is not hidden / heads.
      assert.equal(written.head_dim, model.arch.headDim, `${name} config.json head_dim`);
      const reloaded = loadModel(kernels, join(root, name)).model;
      assert.deepEqual(reloaded.config, model.config, `${name} config`);
      assert.deepEqual([...reloaded.parameters.keys()], [...model.parameters.keys()], `${name} tensor names`);
      const ref = readReference(name);
      assert.deepEqual(autogradLogprobs(reloaded, ref.sequences, 1), autogradLogprobs(model, ref.sequences, 1), `${name} log-probs`);
      model.dispose();
      reloaded.dispose();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a bf16-stored frozen base with biases (llama3-gqa) computes what float32 weights of the same values compute', async () => {
  const kernels = await getKernels('auto', 'exact');
  const bf16 = loadModel(kernels, join(MODEL_FIXTURES, 'llama3-gqa')).model;
  bf16.freezeBase();
  bf16.setBaseDtype('bf16');
  assert.equal(bf16.parameters.get('model.layers.0.mlp.down_proj.weight')!.dtype, 'bf16');
  const widened = new Map([...bf16.parameters].map(([n, t]) => [n, { shape: t.shape, data: weightToF32(t) }]));
  const f32 = LlamaModel.fromTensors(kernels, bf16.config, widened);
  const ref = readReference('llama3-gqa');
  const want = autogradLogprobs(f32, ref.sequences, 1);
  autogradLogprobs(bf16, ref.sequences, 1).forEach((lp, b) => assert.ok(maxAbsDifference(lp, want[b]!) < 1e-5, `tokenLogprobs seq ${b}`));
  ref.sequences.forEach((ids, b) => assert.ok(maxAbsDifference(decodeLogprobs(bf16, ids, 2), want[b]!.slice(1)) < 1e-5, `decode seq ${b}`));
  // Rounding to bf16 did change these weights, so the comparison is not trivially equal.
  assert.ok(maxAbsDifference(want[0]!, ref.logprobs[0]!) > 1e-4);
  bf16.dispose();
  f32.dispose();
});
