// `troupe serve --tinker`: models named with --model and every model of the HF cache by hub
// id are offered, and a Qwen3 checkpoint from the cache trains and samples through the API.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readHubEnv } from '../engine/hub/hub-env.js';
import { MODEL_FIXTURES } from '../engine/io/model-fixtures.test-helper.js';
import type { RunningServer } from '../api/start-serve.js';
import { makeTinyModelDir, type TinyModelDir } from '../serve/tiny-model.test-helper.js';
import { TinkerClient, TinkerSampler } from '../tinker/tinker-client.js';
import { DEFAULT_ADAM } from '../tinker/types.js';
import { testDir } from '../util/test-dir.test-helper.js';
import { runTinkerServeCommand } from './serve-command.js';

const COMMIT = 'a'.repeat(40);
let folder: TinyModelDir;
let server: RunningServer;
let client: TinkerClient;
let printed = '';

before(async () => {
  folder = makeTinyModelDir();
  // A hub cache holding the tiny Qwen3 fixture as Troupe/tiny-qwen3 (the layout huggingface_hub writes).
  const home = testDir('troupe-hf-');
  const repo = join(home, 'hub', 'models--Troupe--tiny-qwen3');
  cpSync(join(MODEL_FIXTURES, 'qwen3'), join(repo, 'snapshots', COMMIT), { recursive: true });
  mkdirSync(join(repo, 'refs'));
  writeFileSync(join(repo, 'refs', 'main'), COMMIT);
  server = await runTinkerServeCommand({ models: [`llama=${folder.dir}`], hubEnv: readHubEnv({ HF_HOME: home }), host: '127.0.0.1', port: 0, seed: 0, print: (t) => (printed += t) });
  client = await TinkerClient.connect({ baseUrl: server.url, maxRetries: 1, backoffMs: 10 });
});

after(async () => {
  client.close();
  await server.close();
  folder.remove();
});

test('capabilities list the --model folders and the cached hub models', async () => {
  assert.deepEqual((await client.capabilities()).map((m) => m.model_name), ['llama', 'Troupe/tiny-qwen3']);
  assert.match(printed, /Troupe\/tiny-qwen3/);
});

test('a Qwen3 checkpoint from the HF cache trains by hub id and samples its logprobs consistently', async () => {
  const model = await client.createLoraModel('Troupe/tiny-qwen3', { rank: 4, seed: 2 });
  const text = [5, 9, 13, 21, 34, 55];
  const datum = {
    model_input: { chunks: [{ tokens: text.slice(0, -1) }] },
    loss_fn_inputs: { target_tokens: { dtype: 'int64' as const, shape: [5], data: text.slice(1) } },
  };
  const first = await model.forwardBackward([datum], 'cross_entropy');
  await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.01 });
  const second = await model.forwardBackward([datum], 'cross_entropy', { forwardOnly: true });
  assert.ok(second.metrics['loss:sum']! < first.metrics['loss:sum']!, `loss ${first.metrics['loss:sum']} -> ${second.metrics['loss:sum']}`);
  const sampler = new TinkerSampler(client, await model.saveForSampler());
  const r = await sampler.sample({ prompt: { chunks: [{ tokens: text }] }, sampling_params: { max_tokens: 1 }, prompt_logprobs: true });
  const forward = Array.from(second.loss_fn_outputs[0]!.logprobs!.data);
  r.prompt_logprobs!.slice(1).forEach((lp, i) => assert.ok(Math.abs(lp! - forward[i]!) < 1e-3, `position ${i + 1}`));
});

test('a model that is neither a folder nor a hub id is refused by name', async () => {
  await assert.rejects(runTinkerServeCommand({ models: ['not a model'], hfCache: false, host: '127.0.0.1', port: 0, seed: 0, print: () => {} }), /no such folder "not a model", and it is not a hub id/);
});
