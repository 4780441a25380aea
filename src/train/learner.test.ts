import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNativeBinding } from '../engine/kernels/native-binding.js';
import { createNativeKernels } from '../engine/kernels/native-kernels.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import type { Kernels } from '../engine/kernels/types.js';
import { llamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import { Tape } from '../engine/autograd/tape.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { EmbeddedPolicy } from '../policy/embedded-policy.js';
import type { PolicyLossOptions } from '../algo/policy-loss.js';
import { Learner, microBatches, type LearnerOptions, type TrainingSequence } from './learner.js';

const kernels = createReferenceKernels();
const tokenizer = CharTokenizer.standard();
const config = llamaConfig({ hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab: 64, context: 32 });
const loss: PolicyLossOptions = { kind: 'ppo-clip', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0, klEstimator: 'k3' };
const options: LearnerOptions = { loss, gradClip: 1, weightDecay: 0, microBatchTokens: 4096, logprobTolerance: 1e-4 };

/** K one-token answers to "Q:", each rewarded 1 when it is the digit 1, with group advantages. */
async function sampleBandit(policy: EmbeddedPolicy, seed: number, k = 16): Promise<{ sequences: TrainingSequence[]; hitRate: number }> {
  const [row] = await policy.sample([{ prompt: 'Q:', n: k, seed, temperature: 1, topP: 1, topK: 0, maxTokens: 1, stop: [] }]);
  const rewards: number[] = row!.map((c) => (c.text === '1' ? 1 : 0));
  const mean = rewards.reduce((a, b) => a + b, 0) / k;
  const sequences = row!.map((c, i) => ({
    promptIds: c.promptIds!,
    responseIds: c.ids!,
    oldLogprobs: c.logprobs!,
    advantage: rewards[i]! - mean,
    group: 'q',
  }));
  return { sequences, hitRate: mean };
}

/** p(text | "Q:") under the model's current weights. */
function probabilityOf(model: LlamaModel, policy: EmbeddedPolicy, text: string): number {
  const tape = new Tape(kernels, { grad: false });
  const logprob = model.tokenLogprobs(tape, [{ promptIds: policy.encodePrompt('Q:'), responseIds: tokenizer.encode(text) }]).logprobs.data[0]!;
  tape.dispose();
  return Math.exp(logprob);
}

/** Alternating +1/-1 advantages: a non-zero gradient whatever was sampled. */
function alternate(sequences: TrainingSequence[]): TrainingSequence[] {
  return sequences.map((s, i) => ({ ...s, advantage: i % 2 === 0 ? 1 : -1 }));
}

test('policy-gradient updates make the rewarded answer more likely', async () => {
  const model = LlamaModel.create(kernels, config, { seed: 5 });
  const policy = new EmbeddedPolicy({ id: 'p', model, tokenizer });
  const learner = new Learner({ policyId: 'p', model, options });
  const before = probabilityOf(model, policy, '1');
  for (let step = 0; step < 15; step++) {
    const { sequences } = await sampleBandit(policy, 100 + step);
    learner.update(sequences, 0.05);
  }
  const after = probabilityOf(model, policy, '1');
  assert.ok(after > 5 * before && after > 0.2, `p('1') went from ${before.toFixed(4)} to ${after.toFixed(4)}`);
});

test('recorded and recomputed logprobs agree, and stale samples are refused', async () => {
  const model = LlamaModel.create(kernels, config, { seed: 6 });
  const policy = new EmbeddedPolicy({ id: 'p', model, tokenizer });
  const learner = new Learner({ policyId: 'p', model, options });
  const first = await sampleBandit(policy, 1);
  const metrics = learner.update(alternate(first.sequences), 0.05);
  assert.ok(metrics.max_logprob_gap < 1e-5, `gap ${metrics.max_logprob_gap}`);
  // The weights moved; re-using the first batch means training on logprobs of old weights.
  assert.throws(() => learner.update(alternate(first.sequences), 0.05), /did not use this learner's current weights/);
});

test('a LoRA learner changes only its adapter, never the base or another adapter', async () => {
  const model = LlamaModel.create(kernels, config, { seed: 7 });
  const lora = { r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'up_proj'] as const };
  model.addAdapter('tool', { ...lora, targetModules: [...lora.targetModules] }, 1);
  model.addAdapter('plan', { ...lora, targetModules: [...lora.targetModules] }, 2);
  model.freezeBase();
  const snapshot = (m: Map<string, { data: Float32Array }>) => new Map([...m].map(([k, t]) => [k, Float32Array.from(t.data)]));
  const base = snapshot(model.parameters);
  const plan = snapshot(model.trainableParameters('plan'));
  const tool = snapshot(model.trainableParameters('tool'));
  const policy = new EmbeddedPolicy({ id: 'tool', model, tokenizer, adapter: 'tool' });
  const learner = new Learner({ policyId: 'tool', model, adapter: 'tool', options });
  const { sequences } = await sampleBandit(policy, 3);
  learner.update(alternate(sequences), 0.05);
  for (const [name, t] of model.parameters) assert.deepEqual(t.data, base.get(name), `base ${name} changed`);
  for (const [name, t] of model.trainableParameters('plan')) assert.deepEqual(t.data, plan.get(name), `plan adapter ${name} changed`);
  const changed = [...model.trainableParameters('tool')].filter(([name, t]) => t.data.some((v, i) => v !== tool.get(name)![i]));
  assert.ok(changed.length > 0, 'the tool adapter did not change');
});

test('KL against an identical reference is zero; against a different one it is positive', async () => {
  const model = LlamaModel.create(kernels, config, { seed: 8 });
  const twin = LlamaModel.create(kernels, config, { seed: 8 });
  const other = LlamaModel.create(kernels, config, { seed: 9 });
  const policy = new EmbeddedPolicy({ id: 'p', model, tokenizer });
  const { sequences } = await sampleBandit(policy, 4);
  const withKl = { ...options, loss: { ...loss, klCoef: 0.1 } };
  const same = new Learner({ policyId: 'p', model, options: withKl, reference: { model: twin } }).update(sequences, 0);
  assert.equal(same.kl, 0);
  const differs = new Learner({ policyId: 'p', model, options: withKl, reference: { model: other } }).update(sequences, 0);
  assert.ok(differs.kl !== null && differs.kl > 0);
});

// On the native backend too: its recycled arrays (alloc with zero: false, a step's one
// BufferPool) hold the previous micro-batch's values, so an op that forgot to write some
// element it claimed to overwrite would change the update here.
const backends: [string, Kernels][] = [['reference', kernels]];
if (loadNativeBinding().binding) backends.push(['native', createNativeKernels({ threads: 2 })]);
for (const [name, k] of backends) test(`micro-batch size does not change the update (${name} kernels)`, async () => {
  const weightsAfter = async (microBatchTokens: number) => {
    const model = LlamaModel.create(k, config, { seed: 10 });
    const policy = new EmbeddedPolicy({ id: 'p', model, tokenizer });
    const { sequences } = await sampleBandit(policy, 5, 8);
    new Learner({ policyId: 'p', model, options: { ...options, microBatchTokens } }).update(alternate(sequences), 0.05);
    return Float32Array.from(model.parameters.get('model.layers.0.mlp.up_proj.weight')!.data);
  };
  const whole = await weightsAfter(4096);
  const split = await weightsAfter(3);
  let maxDiff = 0;
  whole.forEach((v, i) => (maxDiff = Math.max(maxDiff, Math.abs(v - split[i]!))));
  assert.ok(maxDiff < 1e-6, `max weight difference ${maxDiff}`);
});

// The learner keeps its BufferPool from one update to the next. Every array the first update
// left in the pool is filled with NaN before the second, so an op that read an element before
// writing it, or a pool that handed one array out twice, would change the second update's bits
// against a fresh learner resuming from the same weights and optimizer state.
for (const [name, k] of backends) test(`an update on the kept pool gives the bits of a fresh learner (${name} kernels)`, async () => {
  const allocated: Float32Array[] = [];
  const recording: Kernels = { ...k, alloc: (length: number, zero?: boolean) => {
    const array = k.alloc(length, zero);
    allocated.push(array);
    return array;
  } };
  const model = LlamaModel.create(recording, config, { seed: 11 });
  const reference = { model: model.clone({ trainable: false }) };
  const policy = new EmbeddedPolicy({ id: 'p', model, tokenizer });
  const first = alternate((await sampleBandit(policy, 7, 8)).sequences);
  const second = (await sampleBandit(policy, 8, 8)).sequences.map((s, i) => ({ ...s, advantage: i % 3 === 0 ? 1 : -0.5 }));
  const settings: LearnerOptions = { ...options, loss: { ...loss, klCoef: 0.05 }, logprobTolerance: Number.POSITIVE_INFINITY };
  const kept = new Learner({ policyId: 'p', model, reference, options: settings });
  allocated.length = 0;
  kept.update(first, 0.05);
  // What the update allocated and still holds is its pool, apart from the weights' gradients.
  const gradients = new Set([...model.parameters.values()].map((t) => t.grad?.buffer));
  const pooled = allocated.filter((a) => a.buffer.byteLength > 0 && !gradients.has(a.buffer));
  assert.ok(pooled.length > 10, `the pool kept ${pooled.length} arrays`);
  for (const a of pooled) a.fill(Number.NaN);
  const resumedModel = model.clone({ trainable: true });
  const resumed = new Learner({ policyId: 'p', model: resumedModel, reference, options: settings });
  resumed.importOptimizerState(kept.exportOptimizerState());
  const keptMetrics = kept.update(second, 0.05);
  const resumedMetrics = resumed.update(second, 0.05);
  assert.deepEqual(keptMetrics, resumedMetrics);
  for (const [param, t] of model.parameters) {
    const other = resumedModel.parameters.get(param)!;
    assert.deepEqual(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), new Uint8Array(other.data.buffer, other.data.byteOffset, other.data.byteLength), param);
  }
  kept.dispose();
  resumed.dispose();
});

test('microBatches keeps groups together and respects the token budget', () => {
  const seq = (group: string, n: number): TrainingSequence => ({ promptIds: [1, 2], responseIds: new Array(n).fill(3), oldLogprobs: new Array(n).fill(0), advantage: 0, group });
  const batches = microBatches([seq('a', 2), seq('b', 2), seq('a', 2), seq('b', 2)], 8);
  assert.deepEqual(batches.map((b) => b.map((s) => s.group)), [['a', 'a'], ['b', 'b']]);
});

test('microBatches counts a group prompt once in full and an eighth of it for each further sequence', () => {
  const seq = (group: string): TrainingSequence => ({ promptIds: new Array(100).fill(1), responseIds: [3, 3], oldLogprobs: [0, 0], advantage: 0, group });
  const group = (g: string) => Array.from({ length: 8 }, () => seq(g));
  // One group keeps 100 + 8 * 2 + 7 * ceil(100 / 8) = 207 tokens: two fit 414, not 413.
  assert.deepEqual(microBatches([...group('a'), ...group('b')], 414).map((b) => b.length), [16]);
  assert.deepEqual(microBatches([...group('a'), ...group('b')], 413).map((b) => b.length), [15, 1]);
});
