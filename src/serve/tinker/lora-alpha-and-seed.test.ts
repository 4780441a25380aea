// The two LoRA facts the Tinker API leaves to the server, and that a client needs to reproduce
// an embedded run: the adapter's initialisation follows lora_config.seed exactly as the
// embedded engine's does, and alpha is the server's --lora-alpha, reported by get_info and
// kept with saved checkpoints (a restarted server with another alpha refuses to load them).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createReferenceKernels } from '../../engine/kernels/reference.js';
import { loadModel } from '../../engine/io/model-checkpoint.js';
import { TinkerClient } from '../../tinker/tinker-client.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { makeTinyModelDir, type TinyModelDir } from '../tiny-model.test-helper.js';
import { startTinkerServer, type RunningTinkerServer } from './tinker-server.js';

const kernels = createReferenceKernels();
let folder: TinyModelDir;
let stateDir: string;
let server: RunningTinkerServer;
let client: TinkerClient;

before(async () => {
  folder = makeTinyModelDir();
  stateDir = join(testDir('troupe-tinker-alpha-'), 'state');
  server = await startTinkerServer({ kernels, models: [{ name: 'tiny', dir: folder.dir }], port: 0, pollWaitMs: 200, loraAlpha: 8, stateDir, log: () => {} });
  client = await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 1, backoffMs: 10 });
});

after(async () => {
  client.close();
  await server.close();
  folder.remove();
});

test('get_info reports the server --lora-alpha, and the adapter is scaled by it', async () => {
  const model = await client.createLoraModel('tiny', { rank: 4, seed: 5 });
  const info = await model.info();
  assert.equal(info.lora_alpha, 8);
  assert.equal(info.lora_rank, 4);
  assert.equal(server.service.bases.get('tiny').model.adapters.get(model.modelId)!.scale, 2);
});

test('an adapter created with lora_config.seed S equals the embedded adapter of seed S, whatever its name', async () => {
  const model = await client.createLoraModel('tiny', { rank: 4, seed: 77, train_mlp: false });
  const remote = server.service.bases.get('tiny').model.adapters.get(model.modelId)!;
  const { model: local } = loadModel(kernels, folder.dir);
  try {
    const same = local.addAdapter('plan', remote.config, 77);
    const other = local.addAdapter('tool', remote.config, 78);
    assert.deepEqual([...same.parameters.keys()], [...remote.parameters.keys()]);
    assert.ok([...remote.parameters.keys()].every((k) => !k.includes('mlp')), 'train_mlp: false leaves the MLP alone');
    for (const [name, t] of remote.parameters) assert.deepEqual(Array.from(same.parameters.get(name)!.data), Array.from(t.data), name);
    const a = [...remote.parameters.keys()].find((k) => k.endsWith('lora_A.weight'))!;
    assert.notDeepEqual(Array.from(other.parameters.get(a)!.data), Array.from(remote.parameters.get(a)!.data), 'another seed, another adapter');
  } finally {
    local.dispose();
  }
});

test('a checkpoint keeps its alpha: a server restarted with another --lora-alpha refuses to load it, naming the flag', async () => {
  const model = await client.createLoraModel('tiny', { rank: 4, seed: 1 });
  const path = await model.saveWeights('alpha-8');
  const restarted = await startTinkerServer({ kernels, models: [{ name: 'tiny', dir: folder.dir }], port: 0, pollWaitMs: 200, loraAlpha: 32, stateDir, log: () => {} });
  const other = await TinkerClient.connect({ baseUrl: restarted.url, apiKey: 'tml-test', maxRetries: 1, backoffMs: 10 });
  try {
    const fresh = await other.createLoraModel('tiny', { rank: 4, seed: 1 });
    await assert.rejects(fresh.loadWeights(path, true), /trained with LoRA alpha 8, but this server's adapters use alpha 32; restart troupe serve --tinker with --lora-alpha 8/);
  } finally {
    other.close();
    await restarted.close();
  }
});
