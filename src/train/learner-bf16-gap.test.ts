// At Qwen3-0.6B's real widths (hidden 1024, 16 heads of 128 with 8 kv heads, intermediate 3072;
// 2 of its 28 layers, an 8192-row vocabulary) with random bf16 weights, decoding and the
// learner round activations at different points: their logprobs differ by more than the
// float32 tolerance. The update must still run (the learner's recomputation is the old policy,
// the sampler's logprobs weight the tokens), report the gap, and still refuse other weights.
// Runs on the backend TROUPE_BACKEND picks (npm test runs it on native and on wasm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { LINEAR_MODULES } from '../engine/model/llama-params.js';
import { qwen3Shape, randomBf16Model } from '../engine/model/random-bf16-model.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { EmbeddedPolicy } from '../policy/embedded-policy.js';
import type { PolicyLossOptions } from '../algo/policy-loss.js';
import { Learner, type LearnerOptions, type TrainingSequence } from './learner.js';

const loss: PolicyLossOptions = { kind: 'ppo-clip', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0, klEstimator: 'k3' };
const options: LearnerOptions = { loss, gradClip: 1, weightDecay: 0, microBatchTokens: 4096, logprobTolerance: 1e-3 };

/** 2 prompts x 4 completions x 16 tokens with alternating advantages, as one GRPO step samples them. */
async function sampleGroups(policy: EmbeddedPolicy): Promise<TrainingSequence[]> {
  const prompts = [[11, 400, 2900, 77, 5000, 13], [12, 401, 2901, 78, 5001, 14, 15]];
  const rows = await policy.sample(prompts.map((promptIds, p) => ({ prompt: '', promptIds, n: 4, seed: p, temperature: 1, topP: 1, topK: 0, maxTokens: 16, stop: [] })));
  return rows.flatMap((row, p) => row.map((c, i) => ({ promptIds: c.promptIds!, responseIds: c.ids!, oldLogprobs: c.logprobs!, advantage: i % 2 === 0 ? 1 : -1, group: `g${p}` })));
}

test('a bf16 LoRA step at 0.6B widths runs through the rounding gap, reports it, and still refuses other weights', async () => {
  const kernels = await getKernels();
  const model = randomBf16Model(kernels, qwen3Shape({ layers: 2, vocab: 8192 }), 1);
  try {
    const adapter = model.addAdapter('agent', { r: 16, alpha: 32, targetModules: LINEAR_MODULES }, 1);
    // A non-zero B, so the adapter is part of what both paths compute.
    for (const [name, t] of adapter.parameters) if (name.includes('lora_B')) for (let i = 0; i < t.size; i++) t.data[i] = Math.sin(i) * 0.01;
    const policy = new EmbeddedPolicy({ id: 'agent', model, tokenizer: CharTokenizer.standard(), adapter: 'agent', prompting: { stopIds: [] } });
    const sequences = await sampleGroups(policy);
    assert.ok(sequences.every((s) => s.responseIds.length === 16));

    // Taking the sampler's logprobs as the old policy, as float32 models do, stops at this gap.
    const strict = new Learner({ policyId: 'agent', model, adapter: 'agent', options: { ...options, oldLogprobs: 'sampler' } });
    assert.throws(() => strict.update(sequences, 0), /differ from the learner's by up to [0-9.]+e-3 .*set train.old_logprobs: learner/);
    strict.dispose();

    const learner = new Learner({ policyId: 'agent', model, adapter: 'agent', options });
    const metrics = learner.update(sequences, 1e-4);
    assert.equal(metrics.old_logprobs, 'learner');
    assert.equal(metrics.tokens, 128);
    assert.ok(metrics.max_logprob_gap > 1e-3 && metrics.max_logprob_gap < 0.05, `max gap ${metrics.max_logprob_gap}`);
    assert.ok(metrics.mean_logprob_gap > 1e-5 && metrics.mean_logprob_gap < metrics.max_logprob_gap, `mean gap ${metrics.mean_logprob_gap}`);
    // Weights exp(learner - sampler) within the gap of 1, none near the cap.
    assert.ok(Math.abs(metrics.is_weight_mean! - 1) < 0.01, `mean weight ${metrics.is_weight_mean}`);
    assert.equal(metrics.is_truncated_fraction, 0);
    assert.ok(Number.isFinite(metrics.grad_norm) && metrics.grad_norm > 0);

    // Other weights (the adapter replaced) put the mean gap far above the rounding one.
    const stale = await sampleGroups(policy);
    for (const [name, t] of adapter.parameters) if (name.includes('lora_B')) for (let i = 0; i < t.size; i++) t.data[i] = Math.cos(i) * 0.2;
    assert.throws(() => learner.update(stale, 1e-4), /per token on average \(limit 0.05, train.logprob_gap_limit\), far above bf16 rounding/);
    learner.dispose();
  } finally {
    model.dispose();
  }
});
