// The RestClient read routes in the SDK's shapes (GET training_runs/<id> and its checkpoints,
// GET checkpoints, GET sessions), save_weights' ttl_seconds (expired checkpoints are removed),
// and the stop rule of asample (the model's EOS ends a sample also when `stop` is given).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TinkerClient, type TinkerTrainingModel } from '../../tinker/tinker-client.js';
import { API_PREFIX } from '../../tinker/types.js';
import { checkSampleRequest } from './check-sample-request.js';
import { DEFAULT_TINKER_LIMITS } from './limits.js';
import type { RunningTinkerServer } from './tinker-server.js';
import { startTinkerTestServer } from './tinker-test-server.test-helper.js';

let server: RunningTinkerServer;
let client: TinkerClient;
let model: TinkerTrainingModel;
let close: () => Promise<void>;
let clock = Date.UTC(2026, 10, 26, 12, 0, 0);

before(async () => {
  ({ server, client, model, close } = await startTinkerTestServer({ now: () => clock }));
});

after(() => close());

async function get(route: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${API_PREFIX}${route}`);
  return { status: res.status, json: await res.json() };
}

test('GET training_runs/<id> answers the SDK TrainingRun, with the newest checkpoints of each kind', async () => {
  const fresh = await get(`/training_runs/${encodeURIComponent(model.modelId)}`);
  assert.equal(fresh.status, 200);
  assert.deepEqual(fresh.json, {
    training_run_id: model.modelId, base_model: 'tiny', model_owner: 'local', is_lora: true, corrupted: false, lora_rank: 4,
    last_request_time: new Date(clock).toISOString(), last_checkpoint: null, last_sampler_checkpoint: null, user_metadata: null,
  });
  clock += 1000;
  const path = await model.saveWeights('first');
  clock += 1000;
  const second = await model.saveWeights('second');
  const sampler = await model.saveForSampler('for-eval');
  const run = (await get(`/training_runs/${encodeURIComponent(model.modelId)}`)).json;
  assert.equal(run.last_checkpoint.tinker_path, second);
  assert.equal(run.last_checkpoint.checkpoint_id, 'weights/second');
  assert.equal(run.last_checkpoint.checkpoint_type, 'training');
  assert.equal(run.last_sampler_checkpoint.tinker_path, sampler);
  assert.equal(run.last_sampler_checkpoint.checkpoint_type, 'sampler');
  const listed = (await get(`/training_runs/${encodeURIComponent(model.modelId)}/checkpoints`)).json;
  assert.deepEqual(listed.checkpoints.map((c: { tinker_path: string }) => c.tinker_path), [path, second, sampler]);
  assert.ok(listed.checkpoints.every((c: { size_bytes: number; public: boolean; expires_at: null }) => c.size_bytes > 0 && c.public === false && c.expires_at === null));
});

test('GET training_runs, checkpoints and sessions page with limit and offset; unknown runs are a 404', async () => {
  const runs = (await get('/training_runs?limit=1&offset=0')).json;
  assert.equal(runs.training_runs.length, 1);
  assert.equal(runs.cursor.limit, 1);
  assert.ok(runs.cursor.total_count >= 1);
  const all = (await get('/checkpoints')).json;
  assert.ok(all.checkpoints.length >= 3);
  const times = all.checkpoints.map((c: { time: string }) => c.time);
  assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
  assert.ok((await get('/sessions')).json.sessions.includes(client.sessionId));
  const missing = await get('/training_runs/no-such-run');
  assert.equal(missing.status, 404);
  assert.match(missing.json.error, /unknown training run "no-such-run"/);
  assert.equal((await get('/training_runs?limit=abc')).status, 400);
});

test('ttl_seconds: a checkpoint expires, is listed with expires_at until then, and is gone afterwards', async () => {
  const id = await client.submit('/save_weights', { model_id: model.modelId, path: 'rolling', ttl_seconds: 60, seq_id: 4 });
  const { path } = (await client.result(id, 'json')) as { path: string };
  const listed = (await get(`/training_runs/${encodeURIComponent(model.modelId)}/checkpoints`)).json.checkpoints.find((c: { tinker_path: string }) => c.tinker_path === path);
  assert.equal(listed.expires_at, new Date(clock + 60_000).toISOString());
  clock += 59_000;
  assert.equal((await client.post('/weights_info', { tinker_path: path }) as { lora_rank: number }).lora_rank, 4);
  clock += 2_000;
  const after = (await get(`/training_runs/${encodeURIComponent(model.modelId)}/checkpoints`)).json.checkpoints.map((c: { tinker_path: string }) => c.tinker_path);
  assert.ok(!after.includes(path));
  await assert.rejects(client.post('/weights_info', { tinker_path: path }), /no saved weights at .*rolling/);
  const bad = await fetch(`${server.url}${API_PREFIX}/save_weights`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model_id: model.modelId, path: 'x', ttl_seconds: -5 }) });
  assert.equal(bad.status, 400);
});

test("the model's EOS ends a sample whatever `stop` adds; stop ids and strings are added to it", () => {
  const facts = { vocab: 64, context: 512, stopIds: [2] };
  const body = (stop: unknown) => ({ prompt: { chunks: [{ tokens: [1, 5] }] }, sampling_params: { max_tokens: 4, stop } });
  assert.deepEqual(checkSampleRequest(body(undefined), facts, DEFAULT_TINKER_LIMITS).generate.stopIds, [2]);
  assert.deepEqual(checkSampleRequest(body([7, 9]), facts, DEFAULT_TINKER_LIMITS).generate.stopIds, [2, 7, 9]);
  const strings = checkSampleRequest(body(['\n\n']), facts, DEFAULT_TINKER_LIMITS).generate;
  assert.deepEqual([strings.stopIds, strings.stop], [[2], ['\n\n']]);
  assert.throws(() => checkSampleRequest(body([1, 'x']), facts, DEFAULT_TINKER_LIMITS), /sampling_params\.stop: must be a string, a list of strings or a list of token ids/);
});
