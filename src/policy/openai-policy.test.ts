import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { planPathOptionsSchema, planPathTask } from '../envs/plan-path/index.js';
import { loadModel, loadModelAdapter } from '../engine/io/model-checkpoint.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { rollout } from '../rollout/rollout.js';
import type { RolloutOptions } from '../rollout/types.js';
import { loadServedModels } from '../serve/load-served-models.js';
import { startServer, type RunningServer } from '../serve/server.js';
import { makeTinyModelDir, type TinyModelDir } from '../serve/tiny-model.test-helper.js';
import { EmbeddedPolicy } from './embedded-policy.js';
import { OpenAIPolicy, openaiRolePolicies, type OpenAIPolicyOptions } from './openai-policy.js';
import type { SampleRequest } from './types.js';

const kernels = createReferenceKernels();
let folder: TinyModelDir;
let server: RunningServer;

before(async () => {
  folder = makeTinyModelDir({ adapters: ['plan', 'tool'] });
  server = await startServer({ models: loadServedModels(kernels, folder.dir), port: 0, log: () => {} });
});

after(async () => {
  await server.close();
  folder.remove();
});

function embedded(adapter?: string): EmbeddedPolicy {
  const { model, tokenizer } = loadModel(kernels, folder.dir);
  if (adapter) loadModelAdapter(model, `${folder.dir}/adapters/${adapter}`, adapter);
  return new EmbeddedPolicy({ id: adapter ?? 'base', model, tokenizer, adapter });
}

function served(model: string, overrides: Partial<OpenAIPolicyOptions> = {}): OpenAIPolicy {
  return new OpenAIPolicy({ id: model, baseUrl: `${server.url}/v1`, model, timeoutMs: 20_000, maxRetries: 0, concurrency: 4, mode: 'completions', ...overrides });
}

const request: SampleRequest = { prompt: 'S..#\n.G..\nA:', n: 3, seed: 21, temperature: 1, topP: 0.95, topK: 0, maxTokens: 10, stop: ['\n'] };

test('against troupe serve it returns what the embedded policy samples: text, ids, prompt ids, logprobs', async () => {
  const local = await embedded('tool').sample([request, { ...request, prompt: 'GRID 2', n: 2, topK: 5 }]);
  for (const mode of ['completions', 'chat'] as const) {
    const remote = await served('tiny:tool', { mode }).sample([request, { ...request, prompt: 'GRID 2', n: 2, topK: 5 }]);
    assert.equal(remote.length, 2);
    remote.forEach((row, r) =>
      row.forEach((c, i) => {
        const want = local[r]![i]!;
        assert.equal(c.text, want.text, `${mode} ${r}/${i}`);
        assert.deepEqual(c.ids, want.ids);
        assert.deepEqual(c.promptIds, want.promptIds);
        assert.equal(c.finishReason, want.finishReason);
        c.logprobs!.forEach((lp, t) => assert.ok(Math.abs(lp - want.logprobs![t]!) < 1e-5));
      }),
    );
  }
});

for (const temperature of [0, 1]) {
  test(`a plan-path tree rollout (K=2, 2 tasks, per-role adapters, temperature ${temperature}) is the same over HTTP as embedded`, async () => {
    const taskOptions = planPathOptionsSchema.parse({ size: 4, wall_fraction: 0.2 });
    const team = planPathTask.createTeam(taskOptions, { variant: 'team', format: 'compact', order: 'sequential', maxTurns: 2, alpha: 1 });
    const source = planPathTask.createSource(taskOptions, 3);
    const options: RolloutOptions = { mode: 'tree', k: 2, temperature, topP: 1, topK: 0, maxTokens: 12, stop: ['\n'] };
    const embeddedPolicies = { tool: embedded('tool'), plan: embedded('plan') };
    const servedPolicies = { tool: served('tiny:tool'), plan: served('tiny:plan', { mode: 'chat' }) };
    const run = (policies: Record<string, { sample: EmbeddedPolicy['sample']; id: string }>) =>
      rollout({ team, source, tasks: [0, 1], policyFor: (role) => policies[role]!, options, seed: 5, step: 0 });
    const a = await run(embeddedPolicies);
    const b = await run(servedPolicies);
    assert.ok(a.samples.length >= 2 * 2 * 2, 'two roles, two branches, two tasks');
    const strip = (s: (typeof a.samples)[number]) => {
      const { policy: _p, logprobs, ...rest } = s;
      return { ...rest, logprobs: logprobs?.map((x) => Math.round(x * 1e4) / 1e4) };
    };
    assert.deepEqual(b.samples.map(strip), a.samples.map(strip));
    assert.deepEqual(b.episodes, a.episodes);
    assert.ok(b.samples.every((s) => s.response_ids !== undefined && s.logprobs !== undefined && s.prompt_ids !== undefined));
  });
}

// ---- against a scripted fake server: retries, failures, limits, text-only servers ----

interface Fake {
  url: string;
  calls: Array<{ body: any; auth: string | undefined }>;
  maxInFlight: number;
  close(): Promise<void>;
}

async function fakeServer(handler: (body: any, call: number, res: ServerResponse) => void | Promise<void>): Promise<Fake> {
  const fake: Fake = { url: '', calls: [], maxInFlight: 0, close: async () => {} };
  let inFlight = 0;
  const srv: Server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', async () => {
      inFlight += 1;
      fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
      res.on('close', () => (inFlight -= 1));
      const body = JSON.parse(text);
      fake.calls.push({ body, auth: req.headers.authorization });
      await handler(body, fake.calls.length, res);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
  fake.close = () => new Promise((resolve) => { srv.closeAllConnections(); srv.close(() => resolve()); });
  return fake;
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const textChoice = (text: string, index = 0) => ({ index, text, finish_reason: 'stop', logprobs: null });

function fakePolicy(fake: Fake, overrides: Partial<OpenAIPolicyOptions> = {}, warnings: string[] = []): OpenAIPolicy {
  return new OpenAIPolicy({ id: 'fake', baseUrl: fake.url, model: 'm', timeoutMs: 2000, maxRetries: 3, concurrency: 4, mode: 'completions', retryBaseMs: 1, warn: (w) => warnings.push(w), ...overrides });
}

test('retries 429 and 5xx with backoff, then takes text; a text-only server is flagged once', async () => {
  const fake = await fakeServer((body, call, res) => {
    if (call === 1) return reply(res, 429, { error: { message: 'slow down' } }, { 'Retry-After': '0' });
    if (call === 2) return reply(res, 503, { error: { message: 'busy' } });
    reply(res, 200, { choices: Array.from({ length: body.n }, (_, i) => textChoice(`R${i}`, i)) });
  });
  const warnings: string[] = [];
  const policy = fakePolicy(fake, {}, warnings);
  const [row] = await policy.sample([{ ...request, n: 2 }]);
  assert.deepEqual(row!.map((c) => c.text), ['R0', 'R1']);
  assert.ok(row!.every((c) => c.ids === undefined && c.logprobs === undefined && c.finishReason === 'stop'));
  assert.equal(fake.calls.length, 3);
  await policy.sample([{ ...request, n: 1 }]);
  assert.equal(warnings.length, 1, 'warned once');
  assert.match(warnings[0]!, /evaluation only/);
  // What went out: the sampling parameters, the seed, the extra token-id fields.
  const sent = fake.calls[0]!.body;
  assert.deepEqual([sent.model, sent.prompt, sent.n, sent.seed, sent.temperature, sent.top_p, sent.max_tokens, sent.stop, sent.logprobs, sent.return_token_ids], ['m', request.prompt, 2, 21, 1, 0.95, 10, ['\n'], 0, true]);
  await fake.close();
});

test('vLLM-style token_id:N logprob tokens give ids; mismatched logprobs are dropped', async () => {
  const fake = await fakeServer((_body, call, res) =>
    reply(res, 200, {
      choices: [{ index: 0, text: 'AB', finish_reason: 'length', prompt_token_ids: [1, 9], logprobs: { tokens: ['token_id:40', 'token_id:41'], token_logprobs: call === 1 ? [-0.5, -1.5] : [-0.5] } }],
    }),
  );
  const policy = fakePolicy(fake, { tokenIds: true });
  const [[c]] = await policy.sample([{ ...request, n: 1 }]);
  assert.deepEqual([c!.ids, c!.logprobs, c!.promptIds, c!.finishReason], [[40, 41], [-0.5, -1.5], [1, 9], 'length']);
  const [[d]] = await policy.sample([{ ...request, n: 1 }]);
  assert.deepEqual(d!.ids, [40, 41]);
  assert.equal(d!.logprobs, undefined);
  await fake.close();
});

test('a request that keeps failing becomes error completions with the reason; 4xx is not retried', async () => {
  const fake = await fakeServer((body, _call, res) => {
    if (body.prompt === 'bad') return reply(res, 400, { error: { message: 'prompt too long' } });
    reply(res, 500, { error: { message: 'boom' } });
  });
  const policy = fakePolicy(fake, { maxRetries: 2 });
  const [bad, broken] = await policy.sample([{ ...request, prompt: 'bad', n: 2 }, { ...request, prompt: 'x', n: 2 }]);
  assert.equal(bad!.length, 2);
  assert.ok(bad!.every((c) => c.finishReason === 'error' && c.text === '' && /HTTP 400: prompt too long/.test(c.error!)));
  assert.ok(broken!.every((c) => c.finishReason === 'error' && /HTTP 500: boom \(after 3 attempts\)/.test(c.error!)));
  assert.equal(fake.calls.filter((c) => c.body.prompt === 'bad').length, 1);
  assert.equal(fake.calls.filter((c) => c.body.prompt === 'x').length, 3);
  await fake.close();
});

test('timeouts and unreachable servers become error completions', async () => {
  const fake = await fakeServer(() => {}); // never answers
  const slow = fakePolicy(fake, { timeoutMs: 50, maxRetries: 1 });
  const [[c]] = await slow.sample([{ ...request, n: 1 }]);
  assert.equal(c!.finishReason, 'error');
  assert.match(c!.error!, /no answer within 50 ms/);
  await fake.close();
  const gone = fakePolicy(fake, { maxRetries: 0 });
  const [[d]] = await gone.sample([{ ...request, n: 1 }]);
  assert.match(d!.error!, /network error/);
});

test('concurrency limit holds; servers without n get the missing choices one by one', async () => {
  const fake = await fakeServer(async (body, call, res) => {
    await new Promise((r) => setTimeout(r, 20));
    reply(res, 200, { choices: [textChoice(`seed ${body.seed} call ${call}`)] });
  });
  const policy = fakePolicy(fake, { concurrency: 2 });
  const rows = await policy.sample(Array.from({ length: 4 }, (_, i) => ({ ...request, seed: i, n: 3 })));
  assert.ok(rows.every((row) => row.length === 3));
  assert.equal(fake.calls.length, 12);
  assert.equal(fake.maxInFlight, 2);
  const seeds = fake.calls.filter((c) => c.body.n === 1).map((c) => c.body.seed);
  assert.equal(new Set(seeds).size, seeds.length, 'each extra choice gets its own seed');
  await fake.close();
});

test('the API key comes from the named environment variable', async () => {
  const fake = await fakeServer((_b, _c, res) => reply(res, 200, { choices: [textChoice('ok')] }));
  const policy = fakePolicy(fake, { apiKeyEnv: 'TROUPE_TEST_KEY', env: { TROUPE_TEST_KEY: 'sk-123' } });
  await policy.sample([{ ...request, n: 1 }]);
  assert.equal(fake.calls[0]!.auth, 'Bearer sk-123');
  assert.throws(() => fakePolicy(fake, { apiKeyEnv: 'TROUPE_MISSING', env: {} }), /TROUPE_MISSING, which is not set/);
  assert.throws(() => fakePolicy(fake, { baseUrl: 'localhost:8000' }), /base_url/);
  await fake.close();
});

test('openaiRolePolicies: roles on one model share a policy; unknown and unserved role names are config errors', () => {
  const settings = { base_url: 'http://127.0.0.1:9/v1', model: 'base', models: { plan: 'base:plan' }, timeout_ms: 1000, max_retries: 0, concurrency: 1, mode: 'completions' as const, token_ids: true };
  const both = openaiRolePolicies(settings, ['tool', 'plan'], ['tool', 'plan']);
  assert.deepEqual([...both].map(([role, p]) => `${role}=${p.id}`), ['tool=openai:base', 'plan=openai:base:plan']);
  const isConfig = (pattern: RegExp) => (e: unknown) => e instanceof Error && (e as { category?: string }).category === 'config' && pattern.test(e.message);
  assert.throws(() => openaiRolePolicies(settings, ['coder'], ['tool', 'plan']), isConfig(/names role\(s\) coder that the team does not have; its roles: tool, plan/));
  // A mixed team serving only tool: the model name given for plan would never be used.
  assert.throws(() => openaiRolePolicies(settings, ['tool'], ['tool', 'plan']), isConfig(/policy\.openai\.models names role\(s\) plan that the server does not play \(served: tool\)/));
});
