// The RestClient's publish / unpublish (POST / DELETE .../publish) and set_checkpoint_ttl
// (PUT .../ttl): the listing shows `public` and `expires_at`, an expired checkpoint is gone and
// no longer loads, bad input is a 400 naming ttl_seconds, unknown runs and checkpoints are 404s,
// and both survive a restart of the server on the same --state-dir.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createReferenceKernels } from '../../engine/kernels/reference.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { FLAGS_FILE } from './checkpoint-flags.js';
import { startTinkerServer, type RunningTinkerServer } from './tinker-server.js';
import { apiCall, checkpointRoute, startTinkerTestServer, type TinkerTestServer } from './tinker-test-server.test-helper.js';

let clock = Date.UTC(2026, 10, 26, 12, 0, 0);
const stateDir = join(testDir('troupe-ckpt-admin-'), 'state');
let t: TinkerTestServer;

before(async () => {
  t = await startTinkerTestServer({ stateDir, now: () => clock });
});

after(() => t.close());

async function listed(server: { url: string }, modelId: string): Promise<Map<string, { public: boolean; expires_at: string | null }>> {
  const { json } = await apiCall(server, 'GET', `/training_runs/${encodeURIComponent(modelId)}/checkpoints`);
  return new Map(json.checkpoints.map((c: { tinker_path: string; public: boolean; expires_at: string | null }) => [c.tinker_path, c]));
}

test('publish makes a checkpoint public in the listings, unpublish private again; both are idempotent', async () => {
  const path = await t.model.saveWeights('pub');
  const other = await t.model.saveWeights('other');
  const sampler = await t.model.saveForSampler('pub-sampler');
  const published = await apiCall(t.server, 'POST', checkpointRoute(path, 'publish'));
  assert.equal(published.status, 200);
  assert.equal(published.json.public, true);
  assert.equal((await apiCall(t.server, 'POST', checkpointRoute(path, 'publish'))).status, 200, 'publishing twice is no error');
  assert.equal((await apiCall(t.server, 'POST', checkpointRoute(sampler, 'publish'))).status, 200);
  let now = await listed(t.server, t.model.modelId);
  assert.deepEqual([now.get(path)!.public, now.get(other)!.public, now.get(sampler)!.public], [true, false, true]);
  const all = (await apiCall(t.server, 'GET', '/checkpoints')).json.checkpoints.find((c: { tinker_path: string }) => c.tinker_path === path);
  assert.equal(all.public, true, 'GET checkpoints shows it too');
  assert.equal((await apiCall(t.server, 'DELETE', checkpointRoute(path, 'publish'))).json.public, false);
  assert.equal((await apiCall(t.server, 'DELETE', checkpointRoute(path, 'publish'))).status, 200, 'unpublishing twice is no error');
  now = await listed(t.server, t.model.modelId);
  assert.equal(now.get(path)!.public, false);
  await apiCall(t.server, 'POST', checkpointRoute(other, 'publish'));
  await t.model.saveWeights('other'); // saved again under the name: a new, private checkpoint
  assert.equal((await listed(t.server, t.model.modelId)).get(other)!.public, false);
});

test('unknown runs, checkpoints and kinds are 404s naming them; a wrong method is a 405', async () => {
  const path = await t.model.saveWeights('errors');
  const run = await apiCall(t.server, 'POST', '/training_runs/no-such-run/checkpoints/weights/x/publish');
  assert.equal(run.status, 404);
  assert.match(run.json.error, /unknown training run "no-such-run"/);
  const missing = await apiCall(t.server, 'PUT', checkpointRoute(path.replace('errors', 'missing'), 'ttl'), { ttl_seconds: 5 });
  assert.equal(missing.status, 404);
  assert.match(missing.json.error, /no checkpoint at tinker:\/\/.*\/weights\/missing/);
  const kind = await apiCall(t.server, 'POST', checkpointRoute(path, 'publish').replace('/weights/', '/lora/'));
  assert.equal(kind.status, 404);
  assert.match(kind.json.error, /no checkpoint kind "lora"; checkpoint ids are weights\/<name> or sampler_weights\/<name>/);
  const method = await apiCall(t.server, 'GET', checkpointRoute(path, 'publish'));
  assert.equal(method.status, 405);
  assert.match(method.json.error, /GET is not served on \.\.\.\/publish; use POST or DELETE/);
});

test('ttl: set shows expires_at, null removes it, and an expired checkpoint is gone and does not load', async () => {
  const path = await t.model.saveWeights('ttl');
  const set = await apiCall(t.server, 'PUT', checkpointRoute(path, 'ttl'), { ttl_seconds: 60 });
  assert.equal(set.status, 200);
  assert.equal(set.json.expires_at, new Date(clock + 60_000).toISOString());
  assert.equal((await listed(t.server, t.model.modelId)).get(path)!.expires_at, new Date(clock + 60_000).toISOString());
  assert.equal((await apiCall(t.server, 'PUT', checkpointRoute(path, 'ttl'), { ttl_seconds: null })).json.expires_at, null);
  clock += 120_000;
  assert.equal((await listed(t.server, t.model.modelId)).get(path)!.expires_at, null, 'no expiry once removed');
  await apiCall(t.server, 'PUT', checkpointRoute(path, 'ttl'), { ttl_seconds: 10 });
  clock += 10_000;
  assert.ok(!(await listed(t.server, t.model.modelId)).has(path), 'expired: not listed');
  const fresh = await t.client.createLoraModel('tiny', { rank: 4, seed: 3 });
  await assert.rejects(fresh.loadWeights(path, false), /no saved weights at .*\/weights\/ttl/);
  assert.ok(!existsSync(join(stateDir, `${encodeURIComponent(path)}.safetensors`)), 'its file is deleted');
});

test('a bad ttl_seconds is a 400 naming the field and the fix', async () => {
  const path = await t.model.saveWeights('bad-ttl');
  for (const body of [{ ttl_seconds: -5 }, { ttl_seconds: 0 }, { ttl_seconds: 1.5 }, { ttl_seconds: '60' }, { ttl_seconds: 1e12 }]) {
    const bad = await apiCall(t.server, 'PUT', checkpointRoute(path, 'ttl'), body);
    assert.equal(bad.status, 400, JSON.stringify(body));
    assert.match(bad.json.error, /^ttl_seconds: must be (an integer )?>= 1 and <= 315360000, got .*; send a whole number of seconds, or null to remove the expiry$/);
  }
  const missing = await apiCall(t.server, 'PUT', checkpointRoute(path, 'ttl'), {});
  assert.match(missing.json.error, /ttl_seconds: missing; send \{"ttl_seconds": <whole seconds, at least 1>\} .* or \{"ttl_seconds": null\}/);
  assert.equal((await apiCall(t.server, 'PUT', checkpointRoute(path, 'ttl'), 'not json')).status, 400);
  assert.equal((await listed(t.server, t.model.modelId)).get(path)!.expires_at, null, 'nothing changed');
});

test('publish and ttl survive a restart on the same --state-dir, and the ttl still runs out', async () => {
  const published = await t.model.saveWeights('kept-public');
  const expiring = await t.model.saveWeights('kept-expiring');
  await apiCall(t.server, 'POST', checkpointRoute(published, 'publish'));
  await apiCall(t.server, 'PUT', checkpointRoute(expiring, 'ttl'), { ttl_seconds: 3600 });
  const expiresAt = new Date(clock + 3_600_000).toISOString();
  assert.ok(existsSync(join(stateDir, FLAGS_FILE)));
  const restarted: RunningTinkerServer = await startTinkerServer({ kernels: createReferenceKernels(), models: [{ name: 'tiny', dir: t.folder.dir }], port: 0, stateDir, now: () => clock, log: () => {} });
  try {
    let now = await listed(restarted, t.model.modelId);
    assert.equal(now.get(published)!.public, true);
    assert.equal(now.get(expiring)!.expires_at, expiresAt);
    assert.equal(now.get(expiring)!.public, false);
    clock += 3_600_000;
    now = await listed(restarted, t.model.modelId);
    assert.ok(!now.has(expiring), 'expired after the restart');
    assert.ok(now.has(published));
  } finally {
    await restarted.close();
  }
});
