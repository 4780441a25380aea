import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { modelLogprobs } from '../cli/model-command.js';
import { Tape } from '../engine/autograd/tape.js';
import { loadModel, loadModelAdapter } from '../engine/io/model-checkpoint.js';
import { generate } from '../engine/sampling/generate.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { loadServedModels } from './load-served-models.js';
import { startServer, type RunningServer } from './server.js';
import { makeTinyModelDir, type TinyModelDir } from './tiny-model.test-helper.js';

let folder: TinyModelDir;
let server: RunningServer;
let client: OpenAI;
const kernels = createReferenceKernels();

before(async () => {
  folder = makeTinyModelDir({ adapters: ['plan', 'tool'] });
  server = await startServer({ models: loadServedModels(kernels, folder.dir), port: 0, log: () => {} });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
});

after(async () => {
  await server.close();
  folder.remove();
});

/** Extra (vLLM-style) fields the openai client passes through untyped. */
type WithIds = { token_ids: number[]; prompt_token_ids: number[] };

async function post(path: string, body: string, method = 'POST'): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${path}`, { method, headers: { 'Content-Type': 'application/json' }, ...(method === 'GET' ? {} : { body }) });
  return { status: res.status, json: await res.json() };
}

test('the openai client lists the base model and one model per adapter', async () => {
  const page = await client.models.list();
  assert.deepEqual(page.data.map((m) => m.id), ['tiny', 'tiny:plan', 'tiny:tool']);
});

test('completions: text prompt gets BOS, token ids and logprobs line up, seed makes it repeatable', async () => {
  const params = { model: 'tiny', prompt: 'PLAN 1/4\nA:', max_tokens: 12, temperature: 1, seed: 7, n: 3, logprobs: 0 };
  const a = await client.completions.create(params);
  const b = await client.completions.create(params);
  assert.deepEqual(a.choices, b.choices);
  assert.equal(a.choices.length, 3);
  const promptIds = (a as unknown as WithIds).prompt_token_ids;
  assert.equal(promptIds[0], 1, 'BOS first');
  assert.equal(promptIds.length, 1 + 'PLAN 1/4\nA:'.length);
  for (const c of a.choices) {
    const ids = (c as unknown as WithIds).token_ids;
    assert.ok(ids.length >= 1 && ids.length <= 12);
    assert.equal(c.logprobs!.token_logprobs!.length, ids.length);
    assert.equal(c.logprobs!.tokens!.length, ids.length);
    assert.ok(['stop', 'length'].includes(c.finish_reason));
  }
  assert.notDeepEqual(a.choices[0]!.logprobs!.tokens, a.choices[1]!.logprobs!.tokens, 'the n completions draw from different streams');
  const other = await client.completions.create({ ...params, seed: 8 });
  assert.notDeepEqual(other.choices.map((c) => c.text), a.choices.map((c) => c.text));
});

test('completions: token-id prompts, several prompts per request, stop strings cut the text', async () => {
  const prompt = [[1, 30, 31, 32], [1, 40, 41]];
  const r = await client.completions.create({ model: 'tiny', prompt, max_tokens: 20, temperature: 1, seed: 3, n: 2 });
  assert.deepEqual(r.choices.map((c) => c.index), [0, 1, 2, 3]);
  assert.deepEqual((r.choices[2] as unknown as WithIds).prompt_token_ids, prompt[1]);
  // Pick a character the first choice produced and stop on it: the text is cut before it.
  const text = r.choices[0]!.text;
  const stop = text.length > 1 ? text[1]! : undefined;
  if (stop !== undefined) {
    const cut = await client.completions.create({ model: 'tiny', prompt: prompt[0]!, max_tokens: 20, temperature: 1, seed: 3, stop: [stop] });
    assert.equal(cut.choices[0]!.text, text.slice(0, text.indexOf(stop)));
    assert.equal(cut.choices[0]!.finish_reason, 'stop');
  }
});

test('completions stream: chunks add up to the non-streamed answer', async () => {
  const params = { model: 'tiny:tool', prompt: 'GRID\n', max_tokens: 10, temperature: 1, seed: 11, n: 2 };
  const whole = await client.completions.create(params);
  const stream = await client.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  const texts = ['', ''];
  const ids: number[][] = [[], []];
  let finished = 0;
  let usage = 0;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage.completion_tokens;
    for (const c of chunk.choices) {
      texts[c.index] += c.text;
      ids[c.index]!.push(...(c as unknown as WithIds).token_ids);
      if (c.finish_reason) finished += 1;
    }
  }
  assert.equal(finished, 2);
  assert.deepEqual(texts, whole.choices.map((c) => c.text));
  assert.deepEqual(ids, whole.choices.map((c) => (c as unknown as WithIds).token_ids));
  assert.equal(usage, whole.usage!.completion_tokens);
});

test('chat: built-in template gives the completion prompt; streaming matches non-streaming', async () => {
  const messages = [{ role: 'user' as const, content: 'PLAN 1/4\nA:' }];
  const chat = await client.chat.completions.create({ model: 'tiny:plan', messages, max_tokens: 9, temperature: 1, seed: 5, logprobs: true });
  const completion = await client.completions.create({ model: 'tiny:plan', prompt: 'PLAN 1/4\nA:', max_tokens: 9, temperature: 1, seed: 5 });
  assert.deepEqual((chat as unknown as WithIds).prompt_token_ids, (completion as unknown as WithIds).prompt_token_ids);
  assert.equal(chat.choices[0]!.message.content, completion.choices[0]!.text);
  assert.equal(chat.choices[0]!.message.role, 'assistant');
  assert.equal(chat.choices[0]!.logprobs!.content!.length, (chat.choices[0] as unknown as WithIds).token_ids.length);
  const stream = await client.chat.completions.create({ model: 'tiny:plan', messages, max_tokens: 9, temperature: 1, seed: 5, stream: true });
  let text = '';
  let finish: string | null = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.equal(text, chat.choices[0]!.message.content);
  assert.equal(finish, chat.choices[0]!.finish_reason);
});

test('returned logprobs equal the engine\'s tokenLogprobs for the same tokens (base and adapter)', async () => {
  const { model } = loadModel(kernels, folder.dir);
  loadModelAdapter(model, `${folder.dir}/adapters/tool`, 'tool');
  try {
    for (const name of ['tiny', 'tiny:tool']) {
      const r = await client.completions.create({ model: name, prompt: 'S..#\n.G..\nA:', max_tokens: 16, temperature: 1.3, top_p: 0.9, seed: 2, n: 2, logprobs: 3 });
      for (const c of r.choices) {
        const ids = (c as unknown as WithIds).token_ids;
        const promptIds = (c as unknown as WithIds).prompt_token_ids;
        const tape = new Tape(kernels, { grad: false });
        const scored = model.tokenLogprobs(tape, [{ promptIds, responseIds: ids }], { adapter: name === 'tiny' ? undefined : 'tool' });
        const expected = Array.from(scored.logprobs.data);
        tape.dispose();
        const got = c.logprobs!.token_logprobs!;
        assert.equal(got.length, expected.length);
        // `troupe model logprobs` scores the whole sequence; its last tokens are the completion.
        const cli = modelLogprobs(folder.dir, { ids: [...promptIds, ...ids], ...(name === 'tiny' ? {} : { adapter: `${folder.dir}/adapters/tool` }) }, kernels).logprobs.slice(promptIds.length - 1);
        got.forEach((lp, i) => assert.ok(Math.abs(lp - cli[i]!) < 1e-5, `${name} token ${i}: ${lp} vs troupe model logprobs ${cli[i]}`));
        got.forEach((lp, i) => assert.ok(Math.abs(lp - expected[i]!) < 1e-5, `${name} token ${i}: ${lp} vs ${expected[i]}`));
        // top_logprobs: the 3 most likely tokens, and the chosen token's value among them when listed.
        c.logprobs!.top_logprobs!.forEach((alts, i) => {
          // (Object key order is not the list order: digit keys like "0" sort first.)
          const values = Object.values(alts).sort((a, b) => b - a);
          assert.equal(values.length, 3);
          const chosen = c.logprobs!.tokens![i]!;
          if (chosen in alts) assert.ok(Math.abs(alts[chosen]! - got[i]!) < 1e-5);
          else assert.ok(got[i]! <= values[2]! + 1e-6);
        });
      }
    }
  } finally {
    model.dispose();
  }
});

test('concurrent requests are batched and get exactly what they get alone', async () => {
  const prompts = Array.from({ length: 12 }, (_, i) => `PLAN ${i % 5}/4\nA:`);
  const alone: OpenAI.Completion[] = [];
  for (const [i, prompt] of prompts.entries()) alone.push(await client.completions.create({ model: i % 2 ? 'tiny' : 'tiny:plan', prompt, max_tokens: 8, seed: i, n: 2, logprobs: 0 }));
  const before = server.stats();
  const together = await Promise.all(prompts.map((prompt, i) => client.completions.create({ model: i % 2 ? 'tiny' : 'tiny:plan', prompt, max_tokens: 8, seed: i, n: 2, logprobs: 0 })));
  const stats = server.stats();
  assert.ok(stats.batches - before.batches < prompts.length, `12 concurrent requests took ${stats.batches - before.batches} batches`);
  assert.ok(stats.largestBatch > 1);
  together.forEach((r, i) => assert.deepEqual(r.choices, alone[i]!.choices, `request ${i}`));
});

test('64 concurrent requests are all answered, each exactly as the engine samples it alone', async () => {
  const { model, tokenizer } = loadModel(kernels, folder.dir);
  try {
    const prompts = Array.from({ length: 64 }, (_, i) => `PLAN ${i}/64\nA:`);
    const answers = await Promise.all(prompts.map((prompt, i) => post('/v1/completions', JSON.stringify({ model: 'tiny', prompt, max_tokens: 6, seed: 100 + i, temperature: 1 }))));
    answers.forEach((r, i) => {
      assert.equal(r.status, 200, `request ${i}`);
      const promptIds = [tokenizer.special.bos!, ...tokenizer.encode(prompts[i]!)];
      const [[want]] = generate(model, tokenizer, [{ promptIds, n: 1, seed: 100 + i, maxTokens: 6, temperature: 1 }]);
      assert.deepEqual(r.json.choices[0].token_ids, want!.ids, `request ${i}`);
      assert.equal(r.json.choices[0].text, want!.text);
    });
  } finally {
    model.dispose();
  }
});

test('bad requests get OpenAI-style 4xx errors and the server keeps serving', async () => {
  const cases: Array<[string, string, number, string | null]> = [
    ['/v1/completions', '{"model": "tiny", "prompt": ', 400, null],
    ['/v1/completions', JSON.stringify({ model: 'nope', prompt: 'A' }), 404, 'model'],
    ['/v1/completions', JSON.stringify({ model: 'tiny', prompt: 'A'.repeat(600) }), 400, 'prompt'],
    ['/v1/completions', JSON.stringify({ model: 'tiny', prompt: 'A', n: 0 }), 400, 'n'],
    ['/v1/completions', JSON.stringify({ model: 'tiny', prompt: 'A', temperature: -1 }), 400, 'temperature'],
    ['/v1/completions', JSON.stringify({ model: 'tiny', prompt: 'A', max_tokens: 'x' }), 400, 'max_tokens'],
    ['/v1/completions', JSON.stringify({ model: 'tiny', prompt: [1, 99] }), 400, 'prompt'],
    ['/v1/completions', JSON.stringify({ model: 'tiny', prompt: 'A', presence_penalty: 1 }), 400, 'presence_penalty'],
    ['/v1/chat/completions', JSON.stringify({ model: 'tiny', messages: [] }), 400, 'messages'],
    ['/v1/chat/completions', '[1, 2]', 400, null],
  ];
  for (const [path, body, status, param] of cases) {
    const r = await post(path, body);
    assert.equal(r.status, status, `${body} -> ${JSON.stringify(r.json)}`);
    assert.equal(typeof r.json.error.message, 'string');
    assert.equal(r.json.error.param, param, body);
  }
  const unknown = await post('/v1/completions', JSON.stringify({ model: 'nope', prompt: 'A' }));
  assert.match(unknown.json.error.message, /available models: tiny, tiny:plan, tiny:tool/);
  assert.equal(unknown.json.error.code, 'model_not_found');
  const oversize = await post('/v1/completions', JSON.stringify({ model: 'tiny', prompt: 'A'.repeat(600) }));
  assert.equal(oversize.json.error.code, 'context_length_exceeded');
  assert.equal((await post('/v1/completions', '', 'GET')).status, 405);
  assert.equal((await post('/v1/embeddings', '{}')).status, 404);
  // The official client surfaces them as typed errors.
  await assert.rejects(client.completions.create({ model: 'nope', prompt: 'A' }), (e: unknown) => e instanceof OpenAI.NotFoundError);
  await assert.rejects(client.completions.create({ model: 'tiny', prompt: 'A', n: 0 }), (e: unknown) => e instanceof OpenAI.BadRequestError);
  const ok = await client.completions.create({ model: 'tiny', prompt: 'A', max_tokens: 2 });
  assert.equal(ok.choices.length, 1);
});
