// A training client's ops must reach the service in call order even when they are pipelined:
// SkyRL tx runs a client's ops in the order their POSTs arrive (not by seq_id), and three POSTs
// sent at once arrived as optim_step, save_weights_for_sampler, forward_backward in a real run
// (a step with no gradients, a sampler of the old weights). The stand-in service here is slow to
// take in forward_backward, so anything sent without waiting for its acknowledgement arrives
// before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TinkerClient } from './tinker-client.js';

async function startService(arrivalDelayMs: number) {
  const arrivals: { route: string; seq: number | undefined }[] = [];
  let requestIds = 0;
  const server = createServer((req, res) => {
    const route = req.url!.replace('/api/v1', '');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (json: unknown) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
      const isJson = (req.headers['content-type'] ?? '').includes('json');
      const body = isJson && chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString()) as { seq_id?: number; request_id?: string }) : {};
      if (route === '/create_session') return reply({ session_id: 's' });
      if (route === '/retrieve_future') return reply(body.request_id === 'create' ? { model_id: 'm1' } : {});
      if (route === '/create_model') return reply({ request_id: 'create' });
      if (!['/forward_backward', '/optim_step', '/save_weights_for_sampler'].includes(route)) return reply({});
      // forward_backward counts as arrived (and is acknowledged) only after a delay, like a
      // large protobuf body still uploading while small JSON requests overtake it.
      const arrive = () => {
        arrivals.push({ route, seq: body.seq_id });
        reply({ request_id: `r${++requestIds}` });
      };
      if (route === '/forward_backward') setTimeout(arrive, arrivalDelayMs);
      else arrive();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('pipelined ops of one training client arrive in call order, each after the previous one was acknowledged', async () => {
  const service = await startService(150);
  const client = await TinkerClient.connect({ baseUrl: service.url, maxRetries: 0 });
  try {
    const model = await client.createLoraModel('base', { rank: 2 });
    const datum = { model_input: { chunks: [{ type: 'encoded_text' as const, tokens: [1, 2] }] }, loss_fn_inputs: { target_tokens: { dtype: 'int64' as const, shape: [2], data: [2, 3] }, weights: { dtype: 'float32' as const, shape: [2], data: [0, 1] } } };
    await Promise.all([
      model.forwardBackward([datum], 'cross_entropy'),
      model.optimStep({ learning_rate: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 }),
      model.saveForSampler(),
      model.forwardBackward([datum], 'cross_entropy', { forwardOnly: true }),
      model.optimStep({ learning_rate: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 }),
    ]);
    assert.deepEqual(service.arrivals.map((a) => a.route), ['/forward_backward', '/optim_step', '/save_weights_for_sampler', '/forward_backward', '/optim_step']);
    const jsonSeqs = service.arrivals.filter((a) => a.seq !== undefined).map((a) => a.seq);
    assert.deepEqual(jsonSeqs, [2, 3, 5], 'the JSON ops carry their seq_ids in call order');
  } finally {
    client.close();
    await service.close();
  }
});
