import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { Tape } from '../autograd/tape.js';
import { f32ToBf16, bf16ToF32 } from '../io/half-float.js';
import { fillNormal, randomLlamaTensors } from '../io/random-tensors.js';
import { createReferenceKernels } from '../kernels/reference.js';
import type { Kernels } from '../kernels/types.js';
import { createWasmKernels } from '../kernels/wasm-kernels.js';
import { AdamW } from '../optim/adamw.js';
import { LlamaInference } from '../sampling/llama-inference.js';
import { llamaConfig } from './llama-config.js';
import { LlamaModel } from './llama-model.js';
import type { ScoringPair } from './scoring-plan.js';

// Products of the bf16 weights in float32 (bf16-matmul-mode.ts): the float32 model of the
// same rounded weights is then the exact definition.
const EXACT = { bf16Matmul: 'exact' } as const;

/**
 * A frozen base stored in bf16 computes the same function as a float32 model whose weights
 * are the same bf16-rounded values: in scoring, in decoding, and under LoRA training.
 */
const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 48, vocab: 40 });
const pairs: ScoringPair[] = [
  { promptIds: [1, 2, 3, 4, 5], responseIds: [6, 7, 8, 9, 10, 11] },
  { promptIds: [1, 2, 3, 4, 5], responseIds: [12, 13] },
  { promptIds: [39, 0], responseIds: [4, 4, 4] },
];

/** Random weights already rounded to bf16, as float32 (what the bf16 model must equal). */
function roundedTensors(): Map<string, { shape: readonly number[]; data: Float32Array }> {
  const tensors = randomLlamaTensors(config, 3, 0.2);
  for (const t of tensors.values()) {
    if (t.shape.length !== 2) continue;
    const bits = new Uint16Array(t.data.length);
    f32ToBf16(t.data, bits);
    bf16ToF32(bits, t.data);
  }
  return tensors;
}

function score(model: LlamaModel, kernels: Kernels, adapter?: string): number[] {
  const tape = new Tape(kernels, { grad: false });
  const out = Array.from(model.tokenLogprobs(tape, pairs, { adapter }).logprobs.data);
  tape.dispose();
  return out;
}

function assertClose(actual: readonly number[], expected: readonly number[], tol: number, label: string): void {
  assert.equal(actual.length, expected.length, label);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]!) <= tol, `${label} [${i}]: ${a} vs ${expected[i]}`));
}

function pair(kernels: Kernels): { f32: LlamaModel; bf16: LlamaModel } {
  const tensors = roundedTensors();
  const f32 = LlamaModel.fromTensors(kernels, config, tensors);
  const bf16 = LlamaModel.fromTensors(kernels, config, tensors);
  bf16.freezeBase();
  bf16.setBaseDtype('bf16');
  return { f32, bf16 };
}

for (const backend of ['reference', 'wasm'] as const) {
  test(`${backend}: a bf16-stored base scores and decodes like the float32 model of the same rounded weights`, async () => {
    const kernels = backend === 'reference' ? createReferenceKernels(EXACT) : await createWasmKernels({ threads: 2, parallelThreshold: 1, ...EXACT });
    const { f32, bf16 } = pair(kernels);
    assert.equal(bf16.baseDtype, 'bf16');
    assert.equal(bf16.parameters.get('model.layers.0.self_attn.q_proj.weight')!.dtype, 'bf16');
    assert.equal(bf16.parameters.get('model.layers.0.input_layernorm.weight')!.dtype, 'f32', 'norms stay float32');
    assertClose(score(bf16, kernels), score(f32, kernels), 1e-5, 'tokenLogprobs');

    const decode = (model: LlamaModel): number[] => {
      const inference = new LlamaInference(model);
      const cache = inference.newCache(16);
      inference.forward([{ tokens: [1, 2, 3], cache }]);
      const logits = Array.from(inference.forward([{ tokens: [7], cache }]));
      cache.free();
      inference.dispose();
      return logits;
    };
    assertClose(decode(bf16), decode(f32), 1e-5, 'decode logits');

    // Back to float32 for full fine-tuning: exact, since the values were bf16 already.
    bf16.freezeBase(false);
    assert.equal(bf16.baseDtype, 'f32');
    assert.deepEqual(bf16.parameters.get('model.embed_tokens.weight')!.data, f32.parameters.get('model.embed_tokens.weight')!.data);
    f32.dispose();
    bf16.dispose();
    await (kernels as { dispose?: () => Promise<void> }).dispose?.();
  });
}

test('LoRA on a bf16 base: gradients flow through the frozen bf16 weights into the adapter; only adapter weights change', () => {
  const kernels = createReferenceKernels(EXACT);
  const { f32, bf16 } = pair(kernels);
  f32.freezeBase();
  const before = new Map([...bf16.parameters].map(([n, t]) => [n, t.dtype === 'bf16' ? t.bits.slice() : t.data.slice()]));
  const grads: Float32Array[][] = [];
  for (const model of [f32, bf16]) {
    const adapter = model.addAdapter('plan', { r: 4, alpha: 8, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] }, 5);
    for (const [name, t] of adapter.parameters) if (name.includes('lora_B')) fillNormal(t.data, Rng.derive(9, name), 0.1);
    const tape = new Tape(kernels);
    const { logprobs } = model.tokenLogprobs(tape, pairs, { adapter: 'plan' });
    tape.backward(logprobs, Float32Array.from(logprobs.data, (_, i) => Math.sin(i + 1)));
    tape.dispose();
    grads.push([...adapter.parameters.values()].map((t) => t.grad!.slice()));
  }
  grads[1]!.forEach((g, i) => assertClose(Array.from(g), Array.from(grads[0]![i]!), 1e-5, `adapter gradient ${i}`));
  assert.ok(grads[1]!.some((g) => g.some((v) => v !== 0)), 'the adapter gets gradients (incl. A, through dx = dy W of bf16 weights)');

  const adapter = bf16.adapters.get('plan')!;
  const optimizer = new AdamW(kernels, adapter.parameters);
  const startA = [...adapter.parameters.values()].map((t) => t.data.slice());
  optimizer.step(1e-2);
  [...adapter.parameters.values()].forEach((t, i) => assert.notDeepEqual(t.data, startA[i], 'adapter weights moved'));
  for (const [name, t] of bf16.parameters) {
    assert.deepEqual(t.dtype === 'bf16' ? t.bits : t.data, before.get(name), `${name} is unchanged`);
    assert.equal(t.grad, null, `${name} has no gradient`);
  }
  optimizer.dispose();
  f32.dispose();
  bf16.dispose();
});

test('a trainable base refuses bf16 storage, and a bf16 tensor refuses float32 reads with a clear error', () => {
  const kernels = createReferenceKernels();
  const model = LlamaModel.fromTensors(kernels, config, roundedTensors());
  assert.throws(() => model.setBaseDtype('bf16'), /bf16 base cannot train; call freezeBase\(\) first/);
  model.freezeBase();
  model.setBaseDtype('bf16');
  assert.throws(() => model.parameters.get('model.layers.1.mlp.up_proj.weight')!.data, /stored as bf16 and has no float32 data/);
  model.dispose();
});
