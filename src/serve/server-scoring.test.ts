/**
 * What evaluation harnesses send (lm-eval's local-completions): `echo` with `logprobs`
 * (prompt log-probs, `token_logprobs[0]` null, `top_logprobs`), `max_tokens: 0`, and vLLM's
 * /tokenize, /detokenize and /tokenizer_info, on the transformers-made fixtures whose
 * reference log-probs transformers computed (scripts/make-model-fixtures.py).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Tape } from '../engine/autograd/tape.js';
import { autogradLogprobs, maxAbsDifference, MODEL_FIXTURES, readReference } from '../engine/io/model-fixtures.test-helper.js';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { loadServedModels } from './load-served-models.js';
import { startServer, type RunningServer } from './server.js';
import type { ServedModel } from './types.js';

const FIXTURES = ['llama3-gqa', 'qwen3'] as const;
let server: RunningServer;
const served = new Map<string, ServedModel>();

before(async () => {
  const kernels = await getKernels('auto', 'exact');
  for (const name of FIXTURES) served.set(name, loadServedModels(kernels, join(MODEL_FIXTURES, name))[0]!);
  server = await startServer({ models: [...served.values()], port: 0, log: () => {} });
});

after(async () => {
  await server.close();
  for (const m of served.values()) m.model.dispose();
});

async function call(path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

/** What lm-eval's local-completions sends to score a context + continuation. */
const score = (model: string, prompt: number[] | string, extra: Record<string, unknown> = {}) =>
  call('/v1/completions', { model, prompt, echo: true, max_tokens: 1, logprobs: 1, temperature: 0, seed: 1234, ...extra });

for (const name of FIXTURES) {
  test(`${name}: echo log-probs of a token-id prompt equal the engine's scoring and transformers' within 1e-4`, async () => {
    const ref = readReference(name);
    const model = served.get(name)!.model;
    for (const [b, ids] of ref.sequences.entries()) {
      const { status, json } = await score(name, [...ids]);
      assert.equal(status, 200, JSON.stringify(json));
      const lp = json.choices[0].logprobs;
      assert.equal(lp.tokens.length, ids.length + 1, 'every prompt token, then the generated one');
      assert.equal(lp.token_logprobs[0], null);
      assert.equal(lp.top_logprobs[0], null);
      const prompt = lp.token_logprobs.slice(1, -1) as number[];
      assert.ok(maxAbsDifference(prompt, ref.logprobs[b]!) < 1e-4, `seq ${b} vs transformers: ${maxAbsDifference(prompt, ref.logprobs[b]!)}`);
      assert.ok(maxAbsDifference(prompt, autogradLogprobs(model, [ids], 1)[0]!) < 1e-4, `seq ${b} vs tokenLogprobs`);
      // lm-eval's slice: the continuation after a context of ctxlen tokens, the generated token left out.
      const ctxlen = Math.floor(ids.length / 2);
      const continuation = (lp.token_logprobs.slice(ctxlen, -1) as number[]).reduce((a, x) => a + x, 0);
      assert.ok(Math.abs(continuation - ref.logprobs[b]!.slice(ctxlen - 1).reduce((a, x) => a + x, 0)) < 1e-3);
      assert.deepEqual(json.choices[0].prompt_token_ids, ids, 'the ids as sent: no BOS added to a token-id prompt');
    }
  });
}

test('top_logprobs of an echoed prompt are the k most likely tokens of each position, and a greedy token equals the first exactly', async () => {
  const model = served.get('qwen3')!.model;
  const V = model.config.vocab_size;
  const logitsOf = (tokens: number[]) => {
    const tape = new Tape(model.kernels, { grad: false });
    const data = Float32Array.from(model.forward(tape, [tokens]).data);
    tape.dispose();
    return data;
  };
  // A reference sequence followed by three greedy tokens, so both cases below occur.
  const ids = readReference('qwen3').sequences[1]!.slice(0, 10);
  for (let i = 0; i < 3; i++) {
    const last = logitsOf(ids).subarray((ids.length - 1) * V);
    ids.push(last.indexOf(Math.max(...last)));
  }
  const k = 3;
  const { json } = await call('/v1/completions', { model: 'qwen3', prompt: ids, echo: true, max_tokens: 0, logprobs: k, return_tokens_as_token_ids: true });
  const lp = json.choices[0].logprobs;
  // An independent float64 log-softmax over the model's logits.
  const logits = logitsOf(ids);
  let greedySeen = 0;
  for (let t = 1; t < ids.length; t++) {
    const row = Array.from(logits.subarray((t - 1) * V, t * V));
    const max = Math.max(...row);
    const logZ = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
    const best = row.map((x, id) => ({ id, lp: x - logZ })).sort((a, b) => b.lp - a.lp || a.id - b.id).slice(0, k);
    const top = Object.entries(lp.top_logprobs[t] as Record<string, number>);
    assert.deepEqual(top.map(([key]) => key), best.map((a) => `token_id:${a.id}`), `position ${t}: the k best, most likely first`);
    top.forEach(([, value], i) => assert.ok(Math.abs(value - best[i]!.lp) < 1e-5, `position ${t} alternative ${i}`));
    assert.ok(Math.abs(lp.token_logprobs[t] - (row[ids[t]!]! - logZ)) < 1e-5, `position ${t} own logprob`);
    if (ids[t] === best[0]!.id) {
      greedySeen++;
      assert.equal(lp.token_logprobs[t], top[0]![1], 'lm-eval tests greediness with ==');
    } else assert.ok(lp.token_logprobs[t] < top[0]![1]);
  }
  assert.ok(greedySeen >= 3, `greedy positions: ${greedySeen}`);
  assert.equal(lp.tokens.length, ids.length, 'max_tokens 0: the prompt only');
  assert.deepEqual(json.choices[0].token_ids, []);
  assert.equal(json.choices[0].finish_reason, 'length');
  assert.equal(json.usage.completion_tokens, 0);
});

test("a text prompt gets BOS as its own null-logprob entry (so the harness's slices line up), unless add_special_tokens is false", async () => {
  const text = 'w5 w6 w7 w8';
  const withBos = (await score('llama3-gqa', text, { max_tokens: 0 })).json.choices[0];
  assert.deepEqual(withBos.prompt_token_ids, [1, 5, 6, 7, 8]);
  assert.deepEqual(withBos.logprobs.tokens, ['<s>', 'w5', 'w6', 'w7', 'w8']);
  assert.equal(withBos.logprobs.token_logprobs[0], null);
  assert.equal(withBos.text, text, 'the echoed text is the prompt (the added BOS shows no text)');
  // Each token's text starts where the previous one ended: 'w5', ' w6', ' w7', ' w8'.
  assert.deepEqual(withBos.logprobs.text_offset, [0, 0, 2, 5, 8]);
  const byIds = (await score('llama3-gqa', [1, 5, 6, 7, 8], { max_tokens: 0 })).json.choices[0];
  assert.deepEqual(byIds.logprobs.token_logprobs, withBos.logprobs.token_logprobs, 'the same ids score the same, text or ids');
  const bare = (await score('llama3-gqa', text, { max_tokens: 0, add_special_tokens: false })).json.choices[0];
  assert.deepEqual(bare.prompt_token_ids, [5, 6, 7, 8]);
  assert.equal(bare.logprobs.token_logprobs[0], null);
  // With a generated token: the text and the offsets continue after the prompt.
  const generated = (await score('llama3-gqa', text)).json.choices[0];
  assert.ok(generated.text.startsWith(text) && generated.text.length > text.length);
  assert.equal(generated.logprobs.text_offset.at(-1), text.length);
  assert.equal(generated.logprobs.tokens.length, 6);
});

test('/tokenize and /detokenize as vLLM has them: ids, special tokens, chat messages, round trips', async () => {
  const tokenizer = served.get('llama3-gqa')!.tokenizer;
  const plain = (await call('/tokenize', { model: 'llama3-gqa', prompt: 'w3 w9 w60', add_special_tokens: false })).json;
  assert.deepEqual(plain, { count: 3, max_model_len: 128, tokens: [3, 9, 60], token_strs: null });
  assert.deepEqual((await call('/tokenize', { prompt: 'w3 w9', return_token_strs: true })).json.token_strs, ['<s>', 'w3', 'w9'], 'BOS by default; no model = the first one');
  // lm-eval finds the EOS id by tokenizing the EOS text without special tokens.
  assert.deepEqual((await call('/tokenize', { prompt: '</s>', add_special_tokens: false })).json.tokens, [2]);
  for (const ids of readReference('llama3-gqa').sequences.map((s) => s.filter((id) => id > 2))) {
    const text = (await call('/detokenize', { model: 'llama3-gqa', tokens: ids })).json.prompt;
    assert.equal(text, tokenizer.decode(ids));
    assert.deepEqual((await call('/tokenize', { model: 'llama3-gqa', prompt: text, add_special_tokens: false })).json.tokens, ids, 'round trip');
  }
  const chat = (await call('/tokenize', { model: 'qwen3', messages: [{ role: 'user', content: 'w7 w8' }] })).json;
  assert.deepEqual(chat.tokens, served.get('qwen3')!.chatTemplate.encode([{ role: 'user', content: 'w7 w8' }], { addGenerationPrompt: true }));
});

test('/tokenizer_info answers what lm-eval probes for: eos_token, bos_token, pad_token, chat_template', async () => {
  const { status, json } = await call('/tokenizer_info');
  assert.equal(status, 200);
  assert.equal(json.eos_token, '</s>');
  assert.equal(json.bos_token, '<s>');
  assert.equal(json.pad_token, null);
  assert.equal(json.chat_template, null, 'the fixture has no template of its own');
  assert.equal(json.model_max_length, 128);
  assert.equal((await call('/tokenizer_info?model=qwen3')).json.eos_token, '</s>');
  assert.equal((await call('/tokenizer_info?model=nope')).status, 404);
});

test('bad scoring and tokenizer requests are 400s naming the field', async () => {
  const cases: ReadonlyArray<[string, unknown, string, RegExp]> = [
    ['/v1/completions', { model: 'qwen3', prompt: 'w3', max_tokens: 0 }, 'max_tokens', /only allowed with "echo": true/],
    ['/v1/completions', { model: 'qwen3', prompt: 'w3', echo: true, stream: true }, 'echo', /echo with "stream": true is not supported/],
    ['/v1/completions', { model: 'qwen3', prompt: 'w3', echo: 'yes' }, 'echo', /expected true or false/],
    ['/v1/completions', { model: 'qwen3', prompt: 'w3', add_special_tokens: 1 }, 'add_special_tokens', /expected true or false/],
    ['/v1/chat/completions', { model: 'qwen3', messages: [{ role: 'user', content: 'w3' }], echo: true }, 'echo', /not supported by troupe serve/],
    ['/tokenize', { model: 'qwen3' }, 'prompt', /expected the text to tokenize/],
    ['/tokenize', { prompt: 'w3', messages: [] }, 'prompt', /either "prompt" or "messages"/],
    ['/detokenize', { tokens: 'w3' }, 'tokens', /expected a list of token ids/],
    ['/detokenize', { tokens: [3, 64] }, 'tokens', /token id 64 \(at 1\) is outside the vocabulary 0\.\.63/],
  ];
  for (const [path, body, param, message] of cases) {
    const { status, json } = await call(path, body);
    assert.equal(status, 400, `${path} ${JSON.stringify(body)}`);
    assert.equal(json.error.param, param);
    assert.match(json.error.message, message);
  }
  assert.equal((await call('/tokenize', { model: 'nope', prompt: 'w3' })).status, 404);
  assert.equal((await call('/tokenize')).status, 405, 'GET /tokenize');
});
