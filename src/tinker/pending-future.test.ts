// A 408 from retrieve_future is the service's long poll timing out while the op still runs
// (SkyRL tx answers it after 300 s during a slow first compile). The client must keep polling
// past maxRetries such answers instead of failing the run; a 408 elsewhere still counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TinkerClient } from './tinker-client.js';

/** A stand-in service whose futures answer 408 `pending` times before their result. */
async function startSlowService(pending: number) {
  let polls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const reply = (status: number, json: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
      const route = req.url!.replace('/api/v1', '');
      if (route === '/create_session') return reply(200, { session_id: 's' });
      if (route === '/create_sampling_session') return reply(200, { sampling_session_id: 'ss' });
      if (route === '/asample') return reply(200, { request_id: 'r1' });
      if (route === '/retrieve_future') {
        polls++;
        if (polls <= pending) return reply(408, { detail: 'Timeout waiting for result' });
        return reply(200, { sequences: [{ tokens: [7], logprobs: [-0.5], stop_reason: 'length' }] });
      }
      if (route === '/get_info') return reply(408, { detail: 'busy' });
      return reply(200, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, polls: () => polls, close: () => new Promise((resolve) => server.close(resolve)) };
}

const request = { prompt: { chunks: [{ type: 'encoded_text' as const, tokens: [1] }] }, num_samples: 1, sampling_params: { max_tokens: 1 } };

test('a future answered 408 more times than maxRetries is polled until its result', async () => {
  const service = await startSlowService(6);
  const client = await TinkerClient.connect({ baseUrl: service.url, maxRetries: 2, backoffMs: 1 });
  try {
    const sampler = await client.createSampler({ baseModel: 'm' });
    const answer = await sampler.sample(request);
    assert.deepEqual(answer.sequences[0]!.tokens, [7]);
    assert.equal(service.polls(), 7);
  } finally {
    client.close();
    await service.close();
  }
});

test('a 408 on another route still spends the retries and then fails', async () => {
  const service = await startSlowService(0);
  const client = await TinkerClient.connect({ baseUrl: service.url, maxRetries: 2, backoffMs: 1 });
  try {
    await assert.rejects(client.post('/get_info', { model_id: 'x' }), /failed after 3 attempts: POST .*get_info answered 408/);
  } finally {
    client.close();
    await service.close();
  }
});
