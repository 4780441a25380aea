import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyOverrides, parseOverride } from '../config/apply-overrides.js';
import { configError } from '../config/config-error.test-helper.js';
import { resolveConfig } from '../config/resolve-config.js';
import { llamaConfig } from '../engine/model/llama-config.js';
import { learnerOptions } from './setup-run.js';
import { activationBytesPerToken, autoMicroBatchTokens, MAX_MICRO_BATCH_TOKENS, resolveMicroBatchTokens } from './micro-batch-tokens.js';

const qwen3_06b = llamaConfig({ hidden: 1024, layers: 28, heads: 16, kvHeads: 8, headDim: 128, intermediate: 3072, vocab: 151936, tied: true, context: 40960 });
const tiny = llamaConfig({ hidden: 64, layers: 4, heads: 4, intermediate: 192, vocab: 100, context: 128 });

test('the estimate is at or above what the native kernels were measured to keep', () => {
  // Measured per layer and token (one LoRA step, kernel allocation counter): 116 KB at 256
  // tokens, 141 KB at 1024; 28 layers plus a head of ~700 KB per token.
  const perLayer = (n: number) => (activationBytesPerToken({ ...qwen3_06b, num_hidden_layers: n }, 256) - activationBytesPerToken({ ...qwen3_06b, num_hidden_layers: 0 }, 256)) / n;
  assert.ok(perLayer(28) >= 116e3 && perLayer(28) < 1.25 * 116e3, `per layer ${perLayer(28)}`);
  const at1024 = (activationBytesPerToken({ ...qwen3_06b, num_hidden_layers: 1 }, 1024) - activationBytesPerToken({ ...qwen3_06b, num_hidden_layers: 0 }, 1024));
  assert.ok(at1024 >= 141e3 && at1024 < 1.25 * 141e3, `per layer at 1024 tokens ${at1024}`);
  const whole = activationBytesPerToken(qwen3_06b, 256);
  assert.ok(whole > 3.9e6 && whole < 5e6, `whole model ${whole}`);
});

test('auto gives the built-in models the cap and a 0.6B model a micro-batch near 1 GiB of activations', () => {
  assert.equal(autoMicroBatchTokens([tiny]), MAX_MICRO_BATCH_TOKENS);
  const big = autoMicroBatchTokens([qwen3_06b]);
  assert.ok(big >= 150 && big <= 260, `0.6B: ${big} tokens`);
  assert.ok(big * activationBytesPerToken(qwen3_06b, 1024) <= 2 ** 30);
  // The largest model of a run decides; a tiny budget still leaves the floor.
  assert.equal(autoMicroBatchTokens([tiny, qwen3_06b]), big);
  assert.equal(autoMicroBatchTokens([qwen3_06b], 1), 64);
  assert.equal(autoMicroBatchTokens([]), MAX_MICRO_BATCH_TOKENS);
});

test('a number in the config is used as it is', () => {
  assert.equal(resolveMicroBatchTokens(512, [qwen3_06b]), 512);
  assert.equal(resolveMicroBatchTokens('auto', [qwen3_06b]), autoMicroBatchTokens([qwen3_06b]));
});

test('the config takes auto (the default) or a whole number >= 64, and says so when given else', () => {
  const toy = { name: 'toy' };
  assert.equal(resolveConfig({ tasks: toy }).train.micro_batch_tokens, 'auto');
  assert.equal(resolveConfig(applyOverrides({ tasks: toy }, [parseOverride('train.micro_batch_tokens=300')])).train.micro_batch_tokens, 300);
  assert.match(configError(() => resolveConfig({ tasks: toy, train: { micro_batch_tokens: 'big' } })), /train\.micro_batch_tokens/);
  assert.match(configError(() => resolveConfig({ tasks: toy, train: { micro_batch_tokens: 32 } })), /train\.micro_batch_tokens/);
});

test('a run hands its learners the size auto stands for, from the models it trains', () => {
  const config = resolveConfig({ tasks: { name: 'toy' } });
  assert.equal(learnerOptions(config, [qwen3_06b]).microBatchTokens, autoMicroBatchTokens([qwen3_06b]));
  assert.equal(learnerOptions(config, [tiny]).microBatchTokens, MAX_MICRO_BATCH_TOKENS);
  const fixed = resolveConfig({ tasks: { name: 'toy' }, train: { micro_batch_tokens: 256 } });
  assert.equal(learnerOptions(fixed, [tiny]).microBatchTokens, 256);
});
