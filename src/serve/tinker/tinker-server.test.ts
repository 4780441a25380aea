// Troupe's Tinker client (src/tinker/tinker-client.ts) against Troupe's Tinker server on a
// tiny random model: training lowers the loss, samplers see the trained weights, logprobs
// agree between trainer and sampler, checkpoints round-trip, bad requests are errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceKernels } from '../../engine/kernels/reference.js';
import { TinkerClient, TinkerSampler, type TinkerTrainingModel } from '../../tinker/tinker-client.js';
import { encodeForwardBackwardRequest } from '../../tinker/tinker-proto.js';
import { DEFAULT_ADAM, type Datum } from '../../tinker/types.js';
import { makeTinyModelDir, type TinyModelDir } from '../tiny-model.test-helper.js';
import { startTinkerServer, type RunningTinkerServer } from './tinker-server.js';

let folder: TinyModelDir;
let server: RunningTinkerServer;
let client: TinkerClient;

before(async () => {
  folder = makeTinyModelDir();
  server = await startTinkerServer({ kernels: createReferenceKernels(), models: [{ name: 'tiny', dir: folder.dir }], port: 0, pollWaitMs: 200, gapTimeoutMs: 1500, log: () => {} });
  client = await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 1, backoffMs: 10 });
});

after(async () => {
  client.close();
  await server.close();
  folder.remove();
});

const TEXT = [3, 17, 42, 8, 25, 33, 12, 50];

/** Next-token datum: reads tokens[0..n-2], scored on tokens[1..n-1]. */
function sftDatum(tokens: readonly number[], weights?: number[]): Datum {
  const n = tokens.length - 1;
  return {
    model_input: { chunks: [{ tokens: tokens.slice(0, -1) }] },
    loss_fn_inputs: {
      target_tokens: { dtype: 'int64', shape: [n], data: tokens.slice(1) },
      weights: { dtype: 'float32', shape: [n], data: weights ?? new Array(n).fill(1) },
    },
  };
}

async function newModel(): Promise<TinkerTrainingModel> {
  return client.createLoraModel('tiny', { rank: 4, seed: 3 });
}

test('capabilities list the base models the server can load', async () => {
  assert.deepEqual(await client.capabilities(), [{ model_name: 'tiny', max_context_length: 512 }]);
});

test('cross_entropy with Adam lowers the loss; a sampler from the trained weights continues the text greedily', async () => {
  const model = await newModel();
  const losses: number[] = [];
  for (let step = 0; step < 12; step++) {
    const out = await model.forwardBackward([sftDatum(TEXT)], 'cross_entropy');
    losses.push(out.metrics['loss:sum']!);
    await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.02 });
  }
  assert.ok(losses[11]! < losses[0]! * 0.2, `loss ${losses[0]} -> ${losses[11]}`);
  await assert.rejects(client.createSampler({}), /give base_model/);
  const trained = new TinkerSampler(client, await model.saveForSampler());
  const r = await trained.sample({ prompt: { chunks: [{ tokens: TEXT.slice(0, 2) }] }, sampling_params: { max_tokens: 6, temperature: 0 } });
  assert.deepEqual(r.sequences[0]!.tokens, TEXT.slice(2));
});

test("the sampler's prompt logprobs and sampled-token logprobs equal the trainer's forward logprobs", async () => {
  const model = await newModel();
  await model.forwardBackward([sftDatum(TEXT)], 'cross_entropy');
  await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 });
  const sampler = new TinkerSampler(client, await model.saveForSampler());
  const forward = await model.forwardBackward([sftDatum(TEXT)], 'cross_entropy', { forwardOnly: true });
  const prompt = await sampler.sample({ prompt: { chunks: [{ tokens: TEXT }] }, sampling_params: { max_tokens: 1 }, prompt_logprobs: true });
  assert.equal(prompt.prompt_logprobs![0], null);
  const fwd = Array.from(forward.loss_fn_outputs[0]!.logprobs!.data);
  prompt.prompt_logprobs!.slice(1).forEach((lp, i) => assert.ok(Math.abs(lp! - fwd[i]!) < 1e-4, `position ${i + 1}: ${lp} vs ${fwd[i]}`));

  const four = await sampler.sample({ prompt: { chunks: [{ tokens: TEXT.slice(0, 3) }] }, num_samples: 4, sampling_params: { max_tokens: 5, seed: 11, temperature: 1 } });
  assert.equal(four.sequences.length, 4);
  for (const seq of four.sequences) {
    const tokens = [...TEXT.slice(0, 3), ...seq.tokens];
    const scored = await model.forwardBackward([sftDatum(tokens)], 'cross_entropy', { forwardOnly: true });
    const tail = Array.from(scored.loss_fn_outputs[0]!.logprobs!.data).slice(2);
    seq.logprobs!.forEach((lp, i) => assert.ok(Math.abs(lp - tail[i]!) < 1e-4, `token ${i}: ${lp} vs ${tail[i]}`));
  }
  const again = await sampler.sample({ prompt: { chunks: [{ tokens: TEXT.slice(0, 3) }] }, num_samples: 4, sampling_params: { max_tokens: 5, seed: 11, temperature: 1 } });
  assert.deepEqual(again.sequences.map((s) => s.tokens), four.sequences.map((s) => s.tokens), 'same seed, same samples');
});

test('importance_sampling and ppo steps move the policy toward positive-advantage tokens', async () => {
  const model = await newModel();
  const tokens = TEXT.slice(0, 5);
  for (const loss of ['importance_sampling', 'ppo'] as const) {
    const before = await model.forwardBackward([sftDatum(tokens)], 'cross_entropy', { forwardOnly: true });
    const old = Array.from(before.loss_fn_outputs[0]!.logprobs!.data);
    const datum: Datum = {
      model_input: { chunks: [{ tokens: tokens.slice(0, -1) }] },
      loss_fn_inputs: {
        target_tokens: { dtype: 'int64', shape: [4], data: tokens.slice(1) },
        logprobs: { dtype: 'float32', shape: [4], data: old },
        advantages: { dtype: 'float32', shape: [4], data: [1, 1, 1, 1] },
      },
    };
    const out = await model.forwardBackward([datum], loss, loss === 'ppo' ? { config: { clip_low_threshold: 0.9, clip_high_threshold: 1.1 } } : {});
    assert.ok(Math.abs(out.metrics['loss:sum']! + 4) < 1e-4, `${loss}: ratio 1 everywhere gives loss -sum(A) = -4, got ${out.metrics['loss:sum']}`);
    await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.01 });
    const after = await model.forwardBackward([sftDatum(tokens)], 'cross_entropy', { forwardOnly: true });
    const sum = (xs: ArrayLike<number>) => Array.from(xs).reduce((a, b) => a + b, 0);
    assert.ok(sum(after.loss_fn_outputs[0]!.logprobs!.data) > sum(old), `${loss} raised the logprobs of the rewarded tokens`);
  }
});

test('save_weights / load_weights restore the adapter and the Adam state (loaded into a fresh client, as Tinker services require)', async () => {
  const model = await newModel();
  await model.forwardBackward([sftDatum(TEXT)], 'cross_entropy');
  await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 });
  const path = await model.saveWeights('ckpt-1');
  assert.match(path, /^tinker:\/\/.+\/weights\/ckpt-1$/);
  const step = async (m: TinkerTrainingModel) => {
    await m.forwardBackward([sftDatum(TEXT)], 'cross_entropy');
    await m.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 });
    return Array.from((await m.forwardBackward([sftDatum(TEXT)], 'cross_entropy', { forwardOnly: true })).loss_fn_outputs[0]!.logprobs!.data);
  };
  const first = await step(model);
  const fresh = await newModel();
  await fresh.loadWeights(path, true);
  const replay = await step(fresh);
  replay.forEach((lp, i) => assert.ok(Math.abs(lp - first[i]!) < 1e-6, `after reload, the same step gives the same weights (position ${i})`));
});

test('a prompt that fills the context is scored (prompt_logprobs); sampling past the context is an error naming both numbers', async () => {
  const sampler = await client.createSampler({ baseModel: 'tiny' });
  const full = Array.from({ length: 512 }, (_, i) => (i * 7) % 64); // the tiny model's context
  const scored = await sampler.sample({ prompt: { chunks: [{ tokens: full }] }, sampling_params: { max_tokens: 1 }, prompt_logprobs: true });
  assert.equal(scored.prompt_logprobs!.length, 512);
  assert.ok(scored.prompt_logprobs!.slice(1).every((lp) => typeof lp === 'number' && lp < 0));
  assert.deepEqual(scored.sequences.map((q) => [q.tokens.length, q.stop_reason]), [[0, 'length']]);
  await assert.rejects(sampler.sample({ prompt: { chunks: [{ tokens: full }] }, sampling_params: { max_tokens: 1 } }), /the prompt has 512 tokens and max_tokens is 1: 513 tokens exceed the model's context of 512/);
});

test('delete_checkpoint forgets saved weights: loading them is then a 404, and a second delete finds nothing', async () => {
  const model = await newModel();
  const path = await model.saveWeights('to-delete');
  assert.equal(await client.deleteCheckpoint(path), true);
  await assert.rejects((await newModel()).loadWeights(path, true), /no saved weights at tinker:\/\/.+\/weights\/to-delete/);
  assert.equal(await client.deleteCheckpoint(path), false);
  const named = await model.saveForSampler('sampler-to-delete');
  assert.match(named, /\/sampler_weights\/sampler-to-delete$/);
  assert.equal(await client.deleteCheckpoint(named), true, 'named sampler weights too');
  await assert.rejects(client.createSampler({ modelPath: named }), /no saved weights/);
});

test('bad requests are errors that name the problem, and the model keeps working', async () => {
  await assert.rejects(client.createLoraModel('no-such-model', { rank: 4 }), /unknown base model "no-such-model".*tiny/);
  const model = await newModel();
  await assert.rejects(model.forwardBackward([sftDatum([1, 2, 64])], 'cross_entropy'), /target token id 64 is outside the vocabulary 0\.\.63/);
  await assert.rejects(model.forwardBackward([sftDatum([1, 2, 3], [1])], 'cross_entropy'), /weights has 1 values but model_input has 2 tokens/);
  const wrongDtype: Datum = { model_input: { chunks: [{ tokens: [1, 2] }] }, loss_fn_inputs: { target_tokens: { dtype: 'float32', shape: [2], data: [2, 3] } } };
  await assert.rejects(model.forwardBackward([wrongDtype], 'cross_entropy'), /target_tokens has dtype float32 but must be int64/);
  await assert.rejects(model.forwardBackward([sftDatum(TEXT)], 'dpo' as 'ppo'), /loss_fn "dpo" is not supported/);
  await assert.rejects(model.forwardBackward([sftDatum(TEXT)], 'importance_sampling'), /lacks logprobs, advantages/);
  const ok = await model.forwardBackward([sftDatum(TEXT)], 'cross_entropy');
  assert.ok(ok.metrics['loss:sum']! > 0);
  const base = await client.createSampler({ baseModel: 'tiny' });
  await assert.rejects(base.sample({ prompt: { chunks: [{ tokens: [70] }] }, sampling_params: { max_tokens: 2 } }), /token id 70 is outside the vocabulary/);
});

test('training ops run in seq_id order whatever order they arrive in; a missing seq_id fails instead of hanging', async () => {
  const model = await newModel();
  const fb = (seq: number) => encodeForwardBackwardRequest({ model_id: model.modelId, seq_id: seq, data: [sftDatum(TEXT)], loss_fn: 'cross_entropy', loss_fn_config: {}, forward_only: false });
  const second = await client.submit('/optim_step', { model_id: model.modelId, seq_id: 2, adam_params: { ...DEFAULT_ADAM, learning_rate: 0.05 } });
  const third = await client.submitProto('/forward_backward', fb(3));
  const first = await client.submitProto('/forward_backward', fb(1));
  const [a, , c] = (await Promise.all([client.result(first, 'forward_backward'), client.result(second, 'json'), client.result(third, 'forward_backward')])) as Array<{ metrics: Record<string, number> }>;
  assert.ok(c!.metrics['loss:sum']! < a!.metrics['loss:sum']!, 'seq 3 ran after the optimizer step of seq 2');
  const orphan = await client.submitProto('/forward_backward', fb(9));
  await assert.rejects(client.result(orphan, 'forward_backward'), /seq_id 4 never arrived/);
});
