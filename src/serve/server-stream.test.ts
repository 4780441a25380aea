// Live streaming: SSE chunks leave the server while the batch is still decoding, add up to the
// non-streamed answer for the same seed, end with usage (when asked) and [DONE], and share a
// batch with non-streamed requests without changing what those get.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { loadServedModels } from './load-served-models.js';
import { startServer, type RunningServer } from './server.js';
import { makeTinyModelDir, type TinyModelDir } from './tiny-model.test-helper.js';

let folder: TinyModelDir;
let server: RunningServer;

before(async () => {
  folder = makeTinyModelDir({ adapters: ['plan'] });
  // A wide batching window, so that requests sent together surely share a batch.
  server = await startServer({ models: loadServedModels(createReferenceKernels(), folder.dir), port: 0, log: () => {}, windowMs: 100, maxWaitMs: 300 });
});

after(async () => {
  await server.close();
  folder.remove();
});

async function post(path: string, body: object): Promise<any> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  return res.json();
}

interface StreamEvent {
  /** The parsed chunk, or '[DONE]'. */
  readonly data: any;
  /** Tokens the server had sampled (in all) when the client read this event. */
  readonly sampled: number;
}

/** Posts a streaming request and reads its SSE events as they arrive. */
async function stream(path: string, body: object): Promise<StreamEvent[]> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const events: StreamEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of res.body!) {
    buffer += decoder.decode(bytes as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      assert.ok(line.startsWith('data: '), line);
      const payload = line.slice('data: '.length);
      events.push({ data: payload === '[DONE]' ? payload : JSON.parse(payload), sampled: server.stats().tokens });
    }
  }
  assert.equal(buffer, '');
  return events;
}

const params = { model: 'tiny', prompt: 'PLAN 2/4\nA:', max_tokens: 40, temperature: 1, seed: 3 };

test('a streamed completion sends its first token while the rest are still being sampled', async (t) => {
  const whole = await post('/v1/completions', params);
  const total = whole.usage.completion_tokens;
  assert.ok(total >= 10, `the answer is long enough to see streaming (${total} tokens)`);
  const start = server.stats().tokens;
  const events = await stream('/v1/completions', { ...params, stream_options: { include_usage: true } });
  const tokens = events.filter((e) => e.data !== '[DONE]' && e.data.choices[0]?.token_ids.length === 1);
  assert.equal(tokens.length, total, 'one chunk per token');
  const sampledAtFirst = tokens[0]!.sampled - start;
  t.diagnostic(`first chunk read after ${sampledAtFirst} of ${total} tokens were sampled`);
  assert.ok(sampledAtFirst < total, `the first chunk arrived after ${sampledAtFirst} of ${total} tokens were sampled, not after all of them`);
  assert.ok(tokens.at(-1)!.sampled - start === total, 'the last one after all of them');

  assert.equal(tokens.map((e) => e.data.choices[0].text).join(''), whole.choices[0].text, 'chunks add up to the non-streamed text');
  assert.deepEqual(tokens.map((e) => e.data.choices[0].token_ids[0]), whole.choices[0].token_ids);
  const [closing, usage, done] = events.slice(-3).map((e) => e.data);
  assert.equal(closing.choices[0].finish_reason, whole.choices[0].finish_reason);
  assert.deepEqual(closing.choices[0].prompt_token_ids, whole.prompt_token_ids);
  assert.deepEqual(usage.choices, []);
  assert.deepEqual(usage.usage, whole.usage);
  assert.equal(done, '[DONE]', '[DONE] is last');
});

test('chat streaming: role first, per-token logprobs as the non-streamed ones, stop strings cut', async () => {
  const body = { model: 'tiny:plan', messages: [{ role: 'user', content: 'PLAN 1/4\nA:' }], max_tokens: 30, temperature: 1, seed: 8, n: 2, logprobs: true, top_logprobs: 3 };
  const whole = await post('/v1/chat/completions', body);
  const events = (await stream('/v1/chat/completions', body)).map((e) => e.data);
  assert.equal(events.at(-1), '[DONE]');
  for (const index of [0, 1]) {
    const mine = events.filter((e) => e !== '[DONE]' && e.choices[0].index === index).map((e) => e.choices[0]);
    const want = whole.choices[index];
    assert.deepEqual(mine[0].delta, { role: 'assistant', content: '' });
    const tokens = mine.filter((c) => c.token_ids?.length === 1);
    assert.equal(tokens.map((c) => c.delta.content).join(''), want.message.content);
    const streamed = tokens.map((c) => c.logprobs.content[0]);
    assert.deepEqual(streamed.map((l) => l.logprob), want.logprobs.content.map((l: any) => l.logprob), 'the sampler\'s own logprobs');
    streamed.forEach((l, i) => {
      const alternatives = want.logprobs.content[i].top_logprobs;
      assert.deepEqual(l.top_logprobs.map((a: any) => a.token), alternatives.map((a: any) => a.token), `token ${i}: same alternatives`);
      l.top_logprobs.forEach((a: any, k: number) => assert.ok(Math.abs(a.logprob - alternatives[k].logprob) < 1e-4));
    });
    assert.equal(mine.at(-1).finish_reason, want.finish_reason);
  }

  const full = (await post('/v1/completions', params)).choices[0].text as string;
  const stop = { ...params, stop: [full.slice(6, 8)] }; // two characters: the first one waits for the second
  const cut = await post('/v1/completions', stop);
  assert.equal(cut.choices[0].text, full.slice(0, full.indexOf(stop.stop[0]!)));
  const streamed = (await stream('/v1/completions', stop)).filter((e) => e.data !== '[DONE]').map((e) => e.data.choices[0]);
  assert.equal(streamed.map((c) => c.text).join(''), cut.choices[0].text);
  assert.equal(streamed.at(-1).stop_reason, cut.choices[0].stop_reason);
});

test('streamed and non-streamed requests in one batch each get what they get alone', async () => {
  const other = { model: 'tiny:plan', prompt: 'GRID\n', max_tokens: 12, temperature: 1, seed: 21, n: 2 };
  const alone = [await post('/v1/completions', params), await post('/v1/completions', other)];
  const batches = server.stats().batches;
  const [streamed, plain] = await Promise.all([stream('/v1/completions', params), post('/v1/completions', other)]);
  assert.equal(server.stats().batches - batches, 1, 'they shared one batch');
  assert.deepEqual(plain.choices, alone[1].choices);
  const text = streamed.filter((e) => e.data !== '[DONE]').map((e) => e.data.choices[0].text).join('');
  assert.equal(text, alone[0].choices[0].text);
});
