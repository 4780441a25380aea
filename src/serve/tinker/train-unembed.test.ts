// lora_config.train_unembed (the SDK's default: true) puts a LoRA pair on the output head, with
// tied embeddings or not: it trains, the sampler applies it (sampled logprobs equal the
// trainer's), and get_info / weights_info report what the adapter really trains.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceKernels } from '../../engine/kernels/reference.js';
import { loraHeadParameterName } from '../../engine/model/lora.js';
import { TinkerClient, TinkerSampler } from '../../tinker/tinker-client.js';
import { DEFAULT_ADAM, type Datum } from '../../tinker/types.js';
import { makeTinyModelDir, type TinyModelDir } from '../tiny-model.test-helper.js';
import { startTinkerServer, type RunningTinkerServer } from './tinker-server.js';

let untied: TinyModelDir;
let tied: TinyModelDir;
let server: RunningTinkerServer;
let client: TinkerClient;

before(async () => {
  untied = makeTinyModelDir();
  tied = makeTinyModelDir({ tied: true });
  server = await startTinkerServer({ kernels: createReferenceKernels(), models: [{ name: 'untied', dir: untied.dir }, { name: 'tied', dir: tied.dir }], port: 0, pollWaitMs: 200, log: () => {} });
  client = await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 0, backoffMs: 10 });
});

after(async () => {
  client.close();
  await server.close();
  untied.remove();
  tied.remove();
});

const TEXT = [3, 17, 42, 8, 25, 33];
const datum: Datum = {
  model_input: { chunks: [{ tokens: TEXT.slice(0, -1) }] },
  loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [5], data: TEXT.slice(1) }, weights: { dtype: 'float32', shape: [5], data: [1, 1, 1, 1, 1] } },
};

for (const base of ['untied', 'tied']) {
  test(`${base} embeddings: train_unembed trains a head pair that the sampler applies, and info says so`, async () => {
    const model = await client.createLoraModel(base, { rank: 4, seed: 1, train_unembed: true, train_attn: false, train_mlp: false });
    assert.equal((await model.info()).train_unembed, true);
    for (let i = 0; i < 3; i++) {
      await model.forwardBackward([datum], 'cross_entropy');
      await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 });
    }
    const adapter = server.service.bases.get(base).model.adapters.get(model.modelId)!;
    assert.deepEqual([...adapter.parameters.keys()], [loraHeadParameterName('A'), loraHeadParameterName('B')], 'only the head is trained');
    assert.ok(adapter.parameters.get(loraHeadParameterName('B'))!.data.some((x) => x !== 0), 'the head B moved');
    const forward = Array.from((await model.forwardBackward([datum], 'cross_entropy', { forwardOnly: true })).loss_fn_outputs[0]!.logprobs!.data);
    const sampler = new TinkerSampler(client, await model.saveForSampler());
    const scored = await sampler.sample({ prompt: { chunks: [{ tokens: TEXT }] }, sampling_params: { max_tokens: 1 }, prompt_logprobs: true });
    scored.prompt_logprobs!.slice(1).forEach((lp, i) => assert.ok(Math.abs(lp! - forward[i]!) < 1e-5, `position ${i}: ${lp} vs ${forward[i]}`));
    const drawn = await sampler.sample({ prompt: { chunks: [{ tokens: TEXT.slice(0, 2) }] }, sampling_params: { max_tokens: 4, seed: 5 } });
    const tokens = [...TEXT.slice(0, 2), ...drawn.sequences[0]!.tokens];
    const rescored = await model.forwardBackward([{ model_input: { chunks: [{ tokens: tokens.slice(0, -1) }] }, loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [tokens.length - 1], data: tokens.slice(1) } } }], 'cross_entropy', { forwardOnly: true });
    const tail = Array.from(rescored.loss_fn_outputs[0]!.logprobs!.data).slice(1);
    drawn.sequences[0]!.logprobs!.forEach((lp, i) => assert.ok(Math.abs(lp - tail[i]!) < 1e-5, `sampled token ${i}: ${lp} vs ${tail[i]}`));
    const saved = await model.saveWeights(`unembed-${base}`);
    assert.equal(((await client.post('/weights_info', { tinker_path: saved })) as { train_unembed: boolean }).train_unembed, true);
  });
}

test('train_unembed false: no head pair, and info reports false', async () => {
  const model = await client.createLoraModel('untied', { rank: 2, train_unembed: false });
  assert.equal((await model.info()).train_unembed, false);
  const adapter = server.service.bases.get('untied').model.adapters.get(model.modelId)!;
  assert.ok(![...adapter.parameters.keys()].some((k) => k.includes('lm_head')));
});
