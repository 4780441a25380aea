// GET .../archive answers the SDK's 302 (Location + Expires), and the Location serves a tar of
// the checkpoint's PEFT adapter: GNU tar extracts exactly adapter_config.json and
// adapter_model.safetensors, byte for byte what saveModelAdapter writes for the adapter as it was
// saved (a later change to the live adapter is not in it), for training and sampler weights,
// with the head pair of a train_unembed adapter. Deleted checkpoints are 404s.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModelAdapter, saveModelAdapter } from '../../engine/io/model-checkpoint.js';
import { loraHeadParameterName } from '../../engine/model/lora.js';
import type { TinkerTrainingModel } from '../../tinker/tinker-client.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { apiCall, checkpointRoute, startTinkerTestServer, type TinkerTestServer } from './tinker-test-server.test-helper.js';

const clock = Date.UTC(2026, 10, 26, 12, 0, 0);
const dir = testDir('troupe-ckpt-archive-');
let t: TinkerTestServer;

before(async () => {
  t = await startTinkerTestServer({ now: () => clock });
});

after(() => t.close());

/** The adapter folder saveModelAdapter writes for `model`'s live adapter now. */
function expectedFolder(model: TinkerTrainingModel, name: string): string {
  const out = join(dir, `expected-${name}`);
  saveModelAdapter(out, t.server.service.bases.get('tiny').model, model.modelId, { baseModelNameOrPath: 'tiny' });
  return out;
}

/** Downloads the archive of `path` through the 302 and extracts it with GNU tar; the folder. */
async function downloaded(path: string, name: string): Promise<string> {
  const url = await apiCall(t.server, 'GET', checkpointRoute(path, 'archive'));
  assert.equal(url.status, 302);
  const location = url.headers.get('location')!;
  assert.equal(location, `${t.server.url}/api/v1${checkpointRoute(path, 'archive')}/download`);
  assert.equal(url.headers.get('expires'), new Date(clock + 15 * 60_000).toUTCString());
  const res = await fetch(location);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/x-tar');
  const tarFile = join(dir, `${name}.tar`);
  writeFileSync(tarFile, new Uint8Array(await res.arrayBuffer()));
  const out = join(dir, `got-${name}`);
  mkdirSync(out);
  const tar = spawnSync('tar', ['-xf', tarFile, '-C', out], { encoding: 'utf8' });
  assert.equal(tar.status, 0, tar.stderr);
  return out;
}

function assertSameFiles(got: string, expected: string): void {
  assert.deepEqual(readdirSync(got).sort(), ['adapter_config.json', 'adapter_model.safetensors']);
  for (const file of readdirSync(expected)) assert.ok(readFileSync(join(got, file)).equals(readFileSync(join(expected, file))), `${file} differs`);
}

/** Changes the live adapter, so an archive of the live weights would differ from the saved ones. */
function nudge(model: TinkerTrainingModel): void {
  for (const p of t.server.service.bases.get('tiny').model.adapters.get(model.modelId)!.parameters.values()) p.data[0]! += 0.5;
}

test('the archive of training weights is the PEFT adapter as saved, byte for byte', async () => {
  nudge(t.model); // B starts at zero; make every tensor non-trivial
  const path = await t.model.saveWeights('arch');
  const expected = expectedFolder(t.model, 'weights');
  nudge(t.model);
  const got = await downloaded(path, 'weights');
  assertSameFiles(got, expected);
  const config = JSON.parse(readFileSync(join(got, 'adapter_config.json'), 'utf8'));
  assert.equal(config.r, 4);
  assert.equal(config.base_model_name_or_path, 'tiny');
});

test('named sampler weights and a train_unembed adapter (lm_head target) archive too', async () => {
  const headModel = await t.client.createLoraModel('tiny', { rank: 2, seed: 4, train_unembed: true });
  nudge(headModel);
  const path = await headModel.saveForSampler('head-sampler');
  const expected = expectedFolder(headModel, 'sampler');
  nudge(headModel);
  const got = await downloaded(path, 'sampler');
  assertSameFiles(got, expected);
  assert.ok(JSON.parse(readFileSync(join(got, 'adapter_config.json'), 'utf8')).target_modules.includes('lm_head'));
  const base = t.server.service.bases.get('tiny').model;
  const loaded = loadModelAdapter(base, got, 'loaded-from-archive'); // what `--adapter` does with the download
  const head = loaded.parameters.get(loraHeadParameterName('B'))!.data;
  assert.ok(head.some((x) => x !== 0), 'the head pair came back');
  assert.notDeepEqual(head, base.adapters.get(headModel.modelId)!.parameters.get(loraHeadParameterName('B'))!.data, 'the saved copy, not the live adapter');
  base.removeAdapter('loaded-from-archive');
});

test('archives of deleted checkpoints and unknown runs are 404s; a wrong method is a 405', async () => {
  const path = await t.model.saveWeights('gone');
  const download = `${checkpointRoute(path, 'archive')}/download`;
  assert.equal((await fetch(`${t.server.url}/api/v1${download}`)).status, 200);
  await t.client.deleteCheckpoint(path);
  for (const route of [checkpointRoute(path, 'archive'), download]) {
    const missing = await apiCall(t.server, 'GET', route);
    assert.equal(missing.status, 404);
    assert.match(missing.json.error, /no checkpoint at tinker:\/\/.*\/weights\/gone \(deleted, expired, or never saved\)/);
  }
  const unknownRun = await apiCall(t.server, 'GET', '/training_runs/nope/checkpoints/weights/x/archive');
  assert.match(unknownRun.json.error, /unknown training run "nope"/);
  assert.equal((await apiCall(t.server, 'POST', checkpointRoute(path, 'archive'))).status, 405);
});
