// The server limits that the hostile suite does not reach with its defaults: the memory bound
// on adapters and in-memory checkpoints (--max-adapter-mb), returned when a model is unloaded or
// a checkpoint deleted, and the token bounds of forward_backward (--max-datum-tokens,
// --max-batch-tokens). Each refusal is a 400 naming the flag that would raise it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TinkerClient, TinkerTrainingModel } from '../../tinker/tinker-client.js';
import { DEFAULT_ADAM, type Datum } from '../../tinker/types.js';
import { startTinkerTestServer } from './tinker-test-server.test-helper.js';

let client: TinkerClient;
let close: () => Promise<void>;

before(async () => {
  // On the tiny base a rank-64 adapter holds 0.62 MB with its gradients and Adam moments, its
  // saved weights with Adam state 0.47 MB, the suite's own rank-4 model 0.04 MB: 1.2 MB is room
  // for one adapter and one checkpoint, not for two of either.
  ({ client, close } = await startTinkerTestServer({ limits: { maxAdapterBytes: 1_200_000, maxDatumTokens: 4, maxBatchTokens: 10 } }));
});

after(() => close());

const unload = (m: TinkerTrainingModel) => client.submit('/unload_model', { model_id: m.modelId }).then((id) => client.result(id, 'json'));

test('adapters and in-memory checkpoints share --max-adapter-mb; unloading and deleting give it back', async () => {
  const first = await client.createLoraModel('tiny', { rank: 64 });
  await assert.rejects(client.createLoraModel('tiny', { rank: 64 }), /create_model: a rank-64 adapter of tiny needs 0\.6 MB, but adapters and checkpoints already hold 0\.6 MB of this server's 1 MB \(--max-adapter-mb\); unload_model or delete_checkpoint first/);
  await first.optimStep(DEFAULT_ADAM); // makes the Adam moments, which save_weights keeps too
  const saved = await first.saveWeights('one');
  await assert.rejects(first.saveWeights('two'), /save_weights tinker:\/\/\S+\/weights\/two needs 0\.4 MB, but adapters and checkpoints already hold 1\.1 MB .*--max-adapter-mb/);
  assert.equal(await client.deleteCheckpoint(saved), true);
  await first.saveWeights('two');
  await unload(first);
  const second = await client.createLoraModel('tiny', { rank: 64 });
  await unload(second);
});

test('forward_backward beyond --max-datum-tokens or --max-batch-tokens is refused before it runs', async () => {
  const model = await client.createLoraModel('tiny', { rank: 2 });
  const datum = (tokens: number[]): Datum => ({ model_input: { chunks: [{ tokens }] }, loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [tokens.length], data: tokens } } });
  await assert.rejects(model.forwardBackward([datum([1, 2, 3, 4, 5])], 'cross_entropy'), /datum 0: model_input has 5 tokens but this server takes at most 4 per datum \(--max-datum-tokens\)/);
  await assert.rejects(model.forwardBackward([datum([1, 2, 3, 4]), datum([1, 2, 3, 4]), datum([1, 2, 3])], 'cross_entropy'), /the request has 11 model_input tokens in all; this server takes at most 10 per forward_backward \(--max-batch-tokens\)/);
  const ok = await model.forwardBackward([datum([1, 2, 3, 4]), datum([1, 2, 3, 4])], 'cross_entropy', { forwardOnly: true });
  assert.equal(ok.loss_fn_outputs.length, 2);
});
