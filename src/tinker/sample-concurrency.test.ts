// The client keeps at most `sampleConcurrency` asample requests in flight, counted from the
// submit to the answer of its future, over all samplers of one client: a burst of one request
// per prompt must not reach the service at once (SkyRL tx on SQLite fails after such a burst).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TinkerClient } from './tinker-client.js';

/** A stand-in service that answers each sample 20 ms after it is submitted, counting the most in flight. */
async function startCountingService() {
  let inFlight = 0;
  let most = 0;
  let nextId = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const reply = (json: unknown) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
      const route = req.url!.replace('/api/v1', '');
      if (route === '/create_session') return reply({ session_id: 's' });
      if (route === '/create_sampling_session') return reply({ sampling_session_id: 'ss' });
      if (route === '/asample') {
        most = Math.max(most, ++inFlight);
        return reply({ request_id: String(nextId++) });
      }
      if (route === '/retrieve_future') {
        return setTimeout(() => {
          inFlight--;
          reply({ sequences: [{ tokens: [JSON.parse(body).request_id.length], logprobs: [0], stop_reason: 'length' }] });
        }, 20);
      }
      return reply({});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, most: () => most, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('at most sampleConcurrency samples of one client are in flight, over all its samplers', async () => {
  const service = await startCountingService();
  const client = await TinkerClient.connect({ baseUrl: service.url, sampleConcurrency: 3 });
  try {
    const samplers = [await client.createSampler({ baseModel: 'm' }), await client.createSampler({ baseModel: 'm' })];
    const request = { prompt: { chunks: [{ type: 'encoded_text' as const, tokens: [1] }] }, num_samples: 1, sampling_params: { max_tokens: 1 } };
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => samplers[i % 2]!.sample(request)));
    assert.equal(answers.length, 12);
    assert.equal(service.most(), 3);
  } finally {
    client.close();
    await service.close();
  }
});
