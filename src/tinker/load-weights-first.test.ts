// load_weights is taken only as a training client's first request: the Tinker service and
// SkyRL tx answer a later one with 400 ("LoadWeights is not permitted with seq_id N"), while
// Troupe's own server would accept it. The client refuses it on every service, so Troupe's
// tests against its own server catch what only failed against SkyRL tx before.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTinkerTestServer, type TinkerTestServer } from '../serve/tinker/tinker-test-server.test-helper.js';

let t: TinkerTestServer;
before(async () => {
  t = await startTinkerTestServer();
});
after(async () => {
  await t.close();
});

test('load_weights after another request of the same client is refused before it is sent, naming the fix', async () => {
  const path = await t.model.saveWeights('first-request');
  await assert.rejects(t.model.loadWeights(path, true), /load_weights of tinker:\/\/.+\/weights\/first-request into training client .+ after 1 request\(s\); .*load into a fresh client \(createLoraModel, then loadWeights\)/);
  const fresh = await t.client.createLoraModel('tiny', { rank: 4, seed: 3 });
  await fresh.loadWeights(path, true);
  await assert.rejects(fresh.loadWeights(path, true), /after 1 request\(s\)/, 'a second load is a later request too');
});

test('unload_model frees a client: its requests then fail', async () => {
  const model = await t.client.createLoraModel('tiny', { rank: 4, seed: 5 });
  await model.unload();
  await assert.rejects(model.saveWeights('gone'), /model/);
});
