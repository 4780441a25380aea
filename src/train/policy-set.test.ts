import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { llamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { countingKernels } from '../engine/train-memory.js';
import type { PolicyLossOptions } from '../algo/policy-loss.js';
import { buildPolicySet } from './policy-set.js';
import type { LearnerOptions } from './learner.js';

const loss: PolicyLossOptions = { kind: 'ppo-clip', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0, klEstimator: 'k3' };
const learner: LearnerOptions = { loss, gradClip: 1, weightDecay: 0, microBatchTokens: 4096, logprobTolerance: 1e-4 };
const tokenizer = CharTokenizer.standard();
const config = llamaConfig({ hidden: 64, layers: 2, heads: 2, intermediate: 256, vocab: tokenizer.vocabSize });

function setUp(spec: 'lora' | 'per-role') {
  const kernels = countingKernels(createReferenceKernels());
  const base = LlamaModel.create(kernels, config, { seed: 1 });
  base.freezeBase();
  base.setBaseDtype('bf16'); // as loadModel(..., { frozen: true }) leaves a bf16 checkpoint
  const baseBytes = kernels.liveBytes();
  kernels.resetPeak();
  const set = buildPolicySet({
    spec,
    roles: ['plan', 'tool'],
    base,
    tokenizer,
    learner,
    lora: { r: 2, alpha: 4, targetModules: ['q_proj'] },
    seed: 1,
    withReference: false,
  });
  return { kernels, base, baseBytes, set };
}

test('a LoRA policy set shares the frozen base in place: building it never holds two bases', () => {
  const { kernels, base, baseBytes, set } = setUp('lora');
  const adapters = kernels.liveBytes() - baseBytes;
  assert.ok(adapters > 0 && adapters < baseBytes / 8, `two small adapters (with gradients and moments): ${adapters} bytes`);
  assert.equal(kernels.peakBytes(), kernels.liveBytes(), 'no copy of the base existed at any moment');
  for (const member of set.members.values()) assert.equal((member as { model: LlamaModel }).model, base);
  assert.equal(base.baseDtype, 'bf16');
  set.dispose();
  assert.equal(kernels.liveBytes(), 0, 'the set owns the base and frees it with the adapters');
});

test('a per-role policy set copies the base for each policy and frees the original', () => {
  const { kernels, base, set } = setUp('per-role');
  const models = [...set.members.values()].map((m) => (m as { model: LlamaModel }).model);
  assert.equal(new Set(models).size, 2);
  assert.ok(!models.includes(base));
  // Two trainable float32 copies (weights, gradients, two AdamW moments) and nothing of the
  // bf16 original.
  assert.equal(kernels.liveBytes(), 2 * 4 * 4 * base.parameterCount());
  set.dispose();
  assert.equal(kernels.liveBytes(), 0);
});
