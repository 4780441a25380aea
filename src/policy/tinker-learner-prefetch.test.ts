// TinkerLearner.prefetch: the next update's forwards sent while the current update runs (what
// asynchronous training does on a Tinker service). A prefetch is used only when it is that
// update's batch at that update's weights, so every update's numbers equal those of a learner
// that never prefetches; one sent too early or for another batch is dropped, not trusted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyLossOptions } from '../algo/policy-loss.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { startTinkerServer, type RunningTinkerServer } from '../serve/tinker/tinker-server.js';
import { makeTinyModelDir, type TinyModelDir } from '../serve/tiny-model.test-helper.js';
import { TinkerClient } from '../tinker/tinker-client.js';
import { TinkerLearner, type TinkerTrainingSequence } from './tinker-learner.js';

const loss: PolicyLossOptions = { kind: 'ppo-clip', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0.05, klEstimator: 'k3' };
// Decoupled PPO, as asynchronous training runs it: the samples are one update old.
const options = { loss, gradClip: 1, weightDecay: 0, logprobTolerance: 1e-3, oldLogprobs: 'learner' as const, tisCap: 2 };

let folder: TinyModelDir;
let server: RunningTinkerServer;
let client: TinkerClient;

before(async () => {
  folder = makeTinyModelDir({ seed: 8 });
  server = await startTinkerServer({ kernels: createReferenceKernels(), models: [{ name: 'tiny', dir: folder.dir }], port: 0, pollWaitMs: 200, log: () => {} });
  client = await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 1, backoffMs: 10 });
});

after(async () => {
  client.close();
  await server.close();
  folder.remove();
});

/** A batch of four sequences, one update old, whose tokens depend on `salt`. */
function batch(salt: number): TinkerTrainingSequence[] {
  return [1, -0.5, 0.75, -1.25].map((advantage, i) => ({
    promptIds: [3 + salt, 7 + i, 11],
    responseIds: [(13 + 5 * i + salt) % 60, (17 + i) % 60, 21 + salt],
    oldLogprobs: [-2.5, -3 - 0.1 * i, -1.5],
    advantage,
    staleness: 1,
  }));
}

/** A learner on a fresh LoRA client; every call gets the same starting adapter and KL reference. */
async function learner(): Promise<TinkerLearner> {
  const model = await client.createLoraModel('tiny', { rank: 2, seed: 4, train_unembed: false });
  const reference = await client.createLoraModel('tiny', { rank: 2, seed: 9, train_unembed: false });
  return new TinkerLearner({ policyId: 'plan', model, options, reference });
}

const [A, B, C] = [batch(0), batch(1), batch(2)];
const LR = 0.05;

test('a prefetch sent while the previous update runs is used, and the update equals one without it', async () => {
  const plain = await learner();
  const expected = [(await plain.update(A, LR)).metrics, (await plain.update(B, LR)).metrics];
  assert.notEqual(expected[1]!.is_weight_max, expected[1]!.is_weight_min, 'the importance weights depend on the forward');

  const ahead = await learner();
  const first = ahead.update(A, LR);
  const prefetched = ahead.prefetch(B); // before A's optimizer step: it must wait for it
  const got = [(await first).metrics];
  await prefetched;
  got.push((await ahead.update(B, LR)).metrics);
  assert.equal(ahead.prefetchesUsed, 1);
  assert.deepEqual(got, expected);
});

test('a prefetch of another batch, or of weights that changed since, is dropped and the update sends its own forwards', async () => {
  const plain = await learner();
  const expected = [(await plain.update(A, LR)).metrics];
  const afterA = await plain.model.saveWeights('prefetch-test-after-a');
  expected.push((await plain.update(B, LR)).metrics);

  const otherBatch = await learner();
  const first = otherBatch.update(A, LR);
  const wrong = otherBatch.prefetch(C);
  await first;
  await wrong;
  const second = (await otherBatch.update(B, LR)).metrics;
  assert.equal(otherBatch.prefetchesUsed, 0);
  assert.deepEqual(second, expected[1]);

  // B's forwards at the starting weights, then a fresh client that loaded the weights (and
  // Adam's moments) after A takes over, as a resumed run does.
  const reloaded = await learner();
  await reloaded.prefetch(B);
  const loaded = await client.createLoraModel('tiny', { rank: 2, seed: 4, train_unembed: false });
  await loaded.loadWeights(afterA, true);
  reloaded.useModel(loaded);
  const late = (await reloaded.update(B, LR)).metrics;
  assert.equal(reloaded.prefetchesUsed, 0, 'forwards of older weights are never trusted');
  assert.deepEqual(late, expected[1]);
});
