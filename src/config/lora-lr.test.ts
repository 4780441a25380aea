// The LoRA learning-rate rule as the config resolves it: LoRA runs (embedded map lora, every
// Tinker client) train at train.lr x train.lora_lr_scale (1 by default, measured); full fine-tuning is untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { peakLearningRate } from './lora-lr.js';
import { resolveConfig } from './resolve-config.js';

const tinker = { kind: 'tinker', tinker: { base_url: 'http://127.0.0.1:8000' } };
const resolve = (policy: object, train: object = {}) => resolveConfig({ tasks: { name: 'toy' }, policy, train: { lr: 0.002, ...train } });

test('a LoRA run without its own rate trains at train.lr x 1 (the measured default), and its config says so', () => {
  for (const policy of [{ kind: 'embedded', map: 'lora' }, tinker, { ...tinker, map: 'per-role' }]) {
    const config = resolve(policy);
    assert.equal(config.train.lora_lr_scale, 1, `${JSON.stringify(policy)}: the factor is spelled out in the resolved config`);
    const peak = peakLearningRate(config);
    assert.ok(Math.abs(peak.lr - 0.002) < 1e-12, `${JSON.stringify(policy)}: ${peak.lr}`);
    assert.equal(peak.rule, 'train.lr 0.002 x train.lora_lr_scale 1');
  }
});

test('full fine-tuning keeps train.lr, and its config gains no LoRA key', () => {
  for (const map of ['shared', 'per-role', { tool: 'a', plan: 'a' }]) {
    const config = resolve({ kind: 'embedded', map });
    assert.equal(config.train.lora_lr_scale, undefined);
    assert.deepEqual(peakLearningRate(config), { lr: 0.002 });
  }
});

test('an explicit train.lora_lr wins over the rule; train.lora_lr_scale changes the factor', () => {
  const explicit = resolve({ kind: 'embedded', map: 'lora' }, { lora_lr: 0.005 });
  assert.equal(explicit.train.lora_lr_scale, undefined, 'no factor is filled in next to an explicit rate');
  assert.deepEqual(peakLearningRate(explicit), { lr: 0.005 });
  assert.deepEqual(peakLearningRate(resolve(tinker, { lora_lr: 0.0007 })), { lr: 0.0007 });
  const scaled = peakLearningRate(resolve({ kind: 'embedded', map: 'lora' }, { lora_lr_scale: 4 }));
  assert.ok(Math.abs(scaled.lr - 0.008) < 1e-12, String(scaled.lr));
  assert.equal(scaled.rule, 'train.lr 0.002 x train.lora_lr_scale 4');
});

test('a LoRA rate without LoRA, or both LoRA keys, is a config error naming the key', () => {
  assert.throws(() => resolve({ kind: 'embedded', map: 'per-role' }, { lora_lr: 0.01 }), /train\.lora_lr: has no effect here: only LoRA adapters train at a LoRA rate, and the map is "per-role"/);
  assert.throws(() => resolve({ kind: 'embedded', map: 'shared' }, { lora_lr_scale: 3 }), /train\.lora_lr_scale: has no effect here: only LoRA adapters/);
  assert.throws(() => resolve({ kind: 'embedded', map: 'lora' }, { lora_lr: 0.01, lora_lr_scale: 3 }), /train\.lora_lr_scale: has no effect here: train\.lora_lr sets the LoRA rate outright \(0\.01\)/);
  assert.throws(() => resolve({ kind: 'embedded', map: 'lora' }, { lora_lr_scale: 0 }), /train\.lora_lr_scale/);
});

test('a saved LoRA config resolves to the same rate again (the run folder round trip)', () => {
  const first = resolve({ kind: 'embedded', map: 'lora' });
  // As run-training's roundTripConfig saves it: the magrpo section only under algorithm magrpo.
  const { magrpo: _magrpo, ...saved } = first;
  const again = resolveConfig(saved);
  assert.equal(again.train.lora_lr_scale, 1);
  assert.deepEqual(peakLearningRate(again), peakLearningRate(first));
});
