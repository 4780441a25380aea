// policy.kind tinker against Troupe's own Tinker server, compared with the embedded engine
// from the same starting weights: same samples, same per-step metrics, same weights after
// the updates (to float tolerance). And a dead server is a clear error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyLossOptions } from '../algo/policy-loss.js';
import { loadModel } from '../engine/io/model-checkpoint.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import { startTinkerServer, type RunningTinkerServer } from '../serve/tinker/tinker-server.js';
import { LORA_ALPHA } from '../serve/tinker/training-model.js';
import { makeTinyModelDir, type TinyModelDir } from '../serve/tiny-model.test-helper.js';
import { TinkerClient, TinkerSampler } from '../tinker/tinker-client.js';
import { Learner } from '../train/learner.js';
import { EmbeddedPolicy } from './embedded-policy.js';
import { TinkerLearner } from './tinker-learner.js';
import { TinkerPolicy } from './tinker-policy.js';
import type { Completion, Policy } from './types.js';

const kernels = createReferenceKernels();
const loss: PolicyLossOptions = { kind: 'ppo-clip', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0, klEstimator: 'k3' };
const options = { loss, gradClip: 1, weightDecay: 0.01, logprobTolerance: 1e-3 };

let folder: TinyModelDir;
let server: RunningTinkerServer;
let client: TinkerClient;

before(async () => {
  folder = makeTinyModelDir({ seed: 8 });
  server = await startTinkerServer({ kernels, models: [{ name: 'tiny', dir: folder.dir }], port: 0, pollWaitMs: 200, log: () => {} });
  client = await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 1, backoffMs: 10 });
});

after(async () => {
  client.close();
  await server.close();
  folder.remove();
});

/** The embedded twin: the same base and a LoRA adapter holding the service adapter's starting weights. */
function embeddedTwin(modelId: string): { model: LlamaModel; policy: EmbeddedPolicy } {
  const { model, tokenizer } = loadModel(kernels, folder.dir);
  model.freezeBase();
  const remote = server.service.bases.get('tiny').model.adapters.get(modelId)!;
  const local = model.addAdapter('plan', { ...remote.config, alpha: LORA_ALPHA }, 0);
  for (const [name, t] of local.parameters) t.data.set(remote.parameters.get(name)!.data);
  return { model, policy: new EmbeddedPolicy({ id: 'plan', model, tokenizer, adapter: 'plan' }) };
}

async function sampleGroup(policy: Policy, seed: number): Promise<Completion[]> {
  const [row] = await policy.sample([{ prompt: 'ab', n: 4, seed, temperature: 1, topP: 1, topK: 0, maxTokens: 5, stop: [] }]);
  return row!;
}

const advantages = [1, -0.5, 0.75, -1.25];

/** Three steps of both learners from the same adapter; with klCoef > 0 both take the base model as the KL reference. */
async function compareLearners(klCoef: number): Promise<void> {
  const withLoss = { ...options, loss: { ...loss, klCoef } };
  const remoteModel = await client.createLoraModel('tiny', { rank: 2, seed: 4, train_unembed: false }); // the embedded twin has no head pair
  const twin = embeddedTwin(remoteModel.modelId);
  const reference = klCoef === 0 ? {} : { reference: { model: twin.model } };
  const embeddedLearner = new Learner({ policyId: 'plan', model: twin.model, adapter: 'plan', options: { ...withLoss, microBatchTokens: 4096 }, ...reference });
  const tinkerLearner = new TinkerLearner({ policyId: 'plan', model: remoteModel, options: withLoss, ...(klCoef === 0 ? {} : { reference: await client.createLoraModel('tiny', { rank: 2, seed: 9, train_unembed: false }) }) });
  const tinkerPolicy = new TinkerPolicy({ id: 'plan', tokenizer: twin.policy.tokenizer, sampler: new TinkerSampler(client, await remoteModel.saveForSampler()) });
  for (let step = 0; step < 3; step++) {
    const [local, remote] = [await sampleGroup(twin.policy, 10 + step), await sampleGroup(tinkerPolicy, 10 + step)];
    assert.deepEqual(remote.map((c) => c.ids), local.map((c) => c.ids), `step ${step}: same seed, same weights, same tokens`);
    remote.forEach((c, i) => c.logprobs!.forEach((lp, t) => assert.ok(Math.abs(lp - local[i]!.logprobs![t]!) < 1e-4, `step ${step} sample ${i} token ${t}`)));
    assert.deepEqual(remote.map((c) => c.text), local.map((c) => c.text));
    const sequences = local.map((c, i) => ({ promptIds: c.promptIds!, responseIds: c.ids!, oldLogprobs: c.logprobs!, advantage: advantages[i]!, group: 'g' }));
    const e = embeddedLearner.update(sequences, 0.05);
    const t = await tinkerLearner.update(sequences, 0.05);
    assert.ok(Math.abs(t.metrics.loss - e.loss) < 1e-4, `step ${step} loss ${t.metrics.loss} vs ${e.loss}`);
    assert.ok(Math.abs(t.metrics.clip_fraction - e.clip_fraction) < 1e-6, `step ${step} clip fraction`);
    assert.ok(Math.abs(t.metrics.grad_norm! - e.grad_norm) < 1e-4 * Math.max(1, e.grad_norm), `step ${step} grad norm ${t.metrics.grad_norm} vs ${e.grad_norm}`);
    assert.equal(t.metrics.tokens, e.tokens);
    if (klCoef === 0) assert.equal(t.metrics.kl, null);
    else {
      close(t.metrics.kl!, e.kl!, 1e-5, `step ${step} kl`);
      if (step > 0) assert.ok(e.kl! > 0, 'after an update the policy has moved away from the base');
    }
    tinkerPolicy.useSampler(new TinkerSampler(client, t.sampler));
  }
  const remote = server.service.bases.get('tiny').model.adapters.get(remoteModel.modelId)!;
  let maxDiff = 0;
  for (const [name, p] of twin.model.adapters.get('plan')!.parameters) {
    const r = remote.parameters.get(name)!.data;
    p.data.forEach((v, i) => (maxDiff = Math.max(maxDiff, Math.abs(v - r[i]!))));
  }
  assert.ok(maxDiff < 1e-4, `adapter weights after 3 steps differ by ${maxDiff}`);
  embeddedLearner.dispose();
  twin.model.dispose();
}

const close = (a: number, b: number, tolerance: number, what: string) => assert.ok(Math.abs(a - b) <= tolerance, `${what}: tinker ${a} vs embedded ${b}`);

test('a tinker learner and policy reproduce the embedded run: samples, metrics and weights, step after step', () => compareLearners(0));

test('with a KL penalty the reference logprobs come from an untrained LoRA client (the base model), and loss and KL match the embedded learner', () => compareLearners(0.1));

test('a KL penalty without a reference model is a clear error (never silently dropped)', async () => {
  const model = await client.createLoraModel('tiny', { rank: 2 });
  assert.throws(() => new TinkerLearner({ policyId: 'tool', model, options: { ...options, loss: { ...loss, klCoef: 0.05 } } }), /KL coefficient is set but there is no reference model/);
});

test('a server that went away is a clear policy error naming it', async () => {
  const lone = await startTinkerServer({ kernels, models: [{ name: 'tiny', dir: folder.dir }], port: 0, log: () => {} });
  const c = await TinkerClient.connect({ baseUrl: lone.url, maxRetries: 1, backoffMs: 10 });
  const model = await c.createLoraModel('tiny', { rank: 2 });
  await lone.close();
  const learner = new TinkerLearner({ policyId: 'plan', model, options });
  await assert.rejects(learner.update([{ promptIds: [1, 2], responseIds: [3], oldLogprobs: [-1], advantage: 1 }], 0.1), (e: Error) => /cannot reach .*check that the server at http:\/\/127\.0\.0\.1:\d+ is running/.test(e.message));
  c.close();
});
