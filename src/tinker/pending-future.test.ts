// A 408 from retrieve_future is the service's long poll timing out while the op still runs
// (SkyRL tx answers it after 300 s during a slow first compile). The client must keep polling
// past maxRetries such answers instead of failing the run; a 408 elsewhere still counts.
// While it waits it reports each minute, and futureTimeoutMs (policy.tinker.future_timeout_s)
// caps the wait; the clock is stepped by the stand-in service, so no test really waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TroupeError } from '../util/errors.js';
import { TinkerClient } from './tinker-client.js';
import { oneTokenRequest, startSlowTinkerService } from './slow-tinker-service.test-helper.js';

test('a future answered 408 more times than maxRetries is polled until its result', async () => {
  const service = await startSlowTinkerService(6);
  const client = await TinkerClient.connect({ baseUrl: service.url, maxRetries: 2, backoffMs: 1 });
  try {
    const sampler = await client.createSampler({ baseModel: 'm' });
    const answer = await sampler.sample(oneTokenRequest);
    assert.deepEqual(answer.sequences[0]!.tokens, [7]);
    assert.equal(service.polls(), 7);
  } finally {
    client.close();
    await service.close();
  }
});

test('a 408 on another route still spends the retries and then fails', async () => {
  const service = await startSlowTinkerService(0);
  const client = await TinkerClient.connect({ baseUrl: service.url, maxRetries: 2, backoffMs: 1 });
  try {
    await assert.rejects(client.post('/get_info', { model_id: 'x' }), /failed after 3 attempts: POST .*get_info answered 408/);
  } finally {
    client.close();
    await service.close();
  }
});

test('a pending future reports each full minute of waiting and, without a timeout, waits for its result', async () => {
  let clock = 0;
  // Each poll takes 25 s of the stepped clock: polls 3 and 5 come back after 75 s and 125 s.
  const service = await startSlowTinkerService(6, { tryAgain: true, onPoll: () => (clock += 25_000) });
  const waits: string[] = [];
  const client = await TinkerClient.connect({ baseUrl: service.url, maxRetries: 2, backoffMs: 1, now: () => clock, onWait: (m) => waits.push(m) });
  try {
    const sampler = await client.createSampler({ baseModel: 'm' });
    const answer = await sampler.sample(oneTokenRequest);
    assert.deepEqual(answer.sequences[0]!.tokens, [7]);
    assert.equal(service.polls(), 7);
    assert.deepEqual(waits, [`still waiting for asample request r1 from ${service.url} (1 min)`, `still waiting for asample request r1 from ${service.url} (2 min)`]);
  } finally {
    client.close();
    await service.close();
  }
});

test('futureTimeoutMs stops a future that never finishes with an error naming the request, the wait, the service and the fix', async () => {
  let clock = 0;
  const service = await startSlowTinkerService(Infinity, { tryAgain: true, onPoll: () => (clock += 25_000) });
  const waits: string[] = [];
  const client = await TinkerClient.connect({ baseUrl: service.url, maxRetries: 2, backoffMs: 1, futureTimeoutMs: 100_000, now: () => clock, onWait: (m) => waits.push(m) });
  try {
    const sampler = await client.createSampler({ baseModel: 'm' });
    const error = await sampler.sample(oneTokenRequest).then(
      () => assert.fail('expected the wait to time out'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof TroupeError && error.category === 'policy', String(error));
    assert.match(error.message, /^Tinker asample request r1 is still pending after 100 s of waiting on http:\/\/127\.0\.0\.1:\d+ \(policy\.tinker\.future_timeout_s: 100\)/);
    assert.match(error.message, /raise policy\.tinker\.future_timeout_s .* check the service at http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(service.polls(), 4, 'the fourth poll comes back after 100 s, the cap');
    assert.deepEqual(waits, [`still waiting for asample request r1 from ${service.url} (1 min)`]);
  } finally {
    client.close();
    await service.close();
  }
});
