// policy.tinker.future_timeout_s reaches the client: a request whose future never finishes
// stops with the timeout's error instead of waiting forever (default: no limit, as the schema says).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../config/resolve-config.js';
import { oneTokenRequest, startSlowTinkerService } from '../tinker/slow-tinker-service.test-helper.js';
import { connectTinker } from './tinker-service-setup.js';

const tinkerConfig = (tinker: Record<string, unknown>) => resolveConfig({ tasks: { name: 'toy' }, policy: { kind: 'tinker', tinker } });

test('policy.tinker.future_timeout_s caps the wait for a future; without it there is no cap', async () => {
  assert.equal(tinkerConfig({ base_url: 'http://127.0.0.1:1' }).policy.tinker!.future_timeout_s, undefined);
  const service = await startSlowTinkerService(Infinity);
  const previousKey = process.env.TINKER_API_KEY;
  process.env.TINKER_API_KEY = 'tml-test';
  const client = await connectTinker(tinkerConfig({ base_url: service.url, future_timeout_s: 0.05 }));
  try {
    const sampler = await client.createSampler({ baseModel: 'm' });
    await assert.rejects(sampler.sample(oneTokenRequest), /asample request r1 is still pending after [\d.]+ s of waiting on http:\/\/127\.0\.0\.1:\d+ \(policy\.tinker\.future_timeout_s: 0\.05\)/);
    assert.ok(service.polls() >= 1);
  } finally {
    client.close();
    await service.close();
    if (previousKey === undefined) delete process.env.TINKER_API_KEY;
    else process.env.TINKER_API_KEY = previousKey;
  }
});
