import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { llamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import { qwen3Shape, randomBf16Model } from '../engine/model/random-bf16-model.js';
import { GapTally, gapMetrics, logprobGap, resolveOldLogprobs } from './logprob-gap.js';

test('auto takes the learner as the old policy only for a bf16 base', () => {
  const kernels = createReferenceKernels();
  const f32 = LlamaModel.create(kernels, llamaConfig({ hidden: 8, layers: 1, heads: 2, intermediate: 16, vocab: 16 }), { seed: 1 });
  const bf16 = randomBf16Model(kernels, { ...qwen3Shape({ layers: 1, vocab: 16 }), hidden_size: 32, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 16, intermediate_size: 64 }, 1);
  assert.equal(resolveOldLogprobs('auto', f32), 'sampler');
  assert.equal(resolveOldLogprobs('auto', bf16), 'learner');
  assert.equal(resolveOldLogprobs('sampler', bf16), 'sampler');
  assert.equal(resolveOldLogprobs('learner', f32), 'learner');
});

test('the gap is the largest and mean |recorded - recomputed| over all micro-batches; NaN is never hidden', () => {
  const tally = new GapTally();
  tally.addGap(logprobGap([-1, -2], [-1.5, -2]));
  tally.addGap(logprobGap([-3], [-2.75]));
  tally.addWeights({ meanWeight: 1.5, minWeight: 1, maxWeight: 2, truncatedFraction: 0.5, weights_N: [1, 2] });
  tally.addWeights({ meanWeight: 0.5, minWeight: 0.5, maxWeight: 0.5, truncatedFraction: 0, weights_N: [0.5, 0.5] });
  assert.deepEqual(tally.summary(), { max: 0.5, mean: 0.25, weights: { is_weight_mean: 1, is_weight_min: 0.5, is_weight_max: 2, is_truncated_fraction: 0.25 } });
  assert.ok(Number.isNaN(logprobGap([NaN, -1], [0, -3]).max));
  // Only the marked (fresh) tokens, when a mask is given.
  assert.deepEqual(logprobGap([-1, -2, -3], [-1.5, -2, -2], [1, 1, 0]), { max: 0.5, sum: 0.5, count: 2 });
  assert.deepEqual(new GapTally().summary(), { max: 0, mean: 0, weights: {} });
  assert.deepEqual(gapMetrics({ max_logprob_gap: 1e-6, mean_logprob_gap: 1e-7, is_weight_mean: 1 }), { logprob_gap_max: 1e-6, logprob_gap_mean: 1e-7, is_weight_mean: 1 });
  assert.deepEqual(gapMetrics({}), {});
});
