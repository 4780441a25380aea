// The chat template kwargs a request may pass (vLLM's chat_template_kwargs / enable_thinking)
// and the stop tokens of generation_config.json, end to end through `troupe serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { loadServedModels } from './load-served-models.js';
import { startServer } from './server.js';
import { makeTinyModelDir } from './tiny-model.test-helper.js';

// Our own template (upper case: the standard vocabulary has no lower-case letters).
const template = "{% for m in messages %}[{{ m.role | upper }}]{{ m.content }}{% endfor %}{% if add_generation_prompt %}[ASSISTANT]{% if enable_thinking is defined and not enable_thinking %}[NO THINK]{% endif %}{% endif %}";
const tokenizer = CharTokenizer.standard();

async function chat(url: string, body: Record<string, unknown>): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'GO' }], ...body }) });
  return { status: res.status, json: await res.json() };
}

test('enable_thinking, top level or in chat_template_kwargs, reaches the template; bad values are 400s', async () => {
  const folder = makeTinyModelDir({ chatTemplate: template });
  const server = await startServer({ models: loadServedModels(createReferenceKernels(), folder.dir), port: 0, log: () => {} });
  try {
    const prompt = async (extra: Record<string, unknown>) => (await chat(server.url, { max_tokens: 1, ...extra })).json.prompt_token_ids as number[];
    assert.deepEqual(await prompt({}), tokenizer.encode('[USER]GO[ASSISTANT]'));
    assert.deepEqual(await prompt({ chat_template_kwargs: { enable_thinking: false } }), tokenizer.encode('[USER]GO[ASSISTANT][NO THINK]'));
    assert.deepEqual(await prompt({ enable_thinking: false }), tokenizer.encode('[USER]GO[ASSISTANT][NO THINK]'));
    assert.deepEqual(await prompt({ enable_thinking: true, chat_template_kwargs: { enable_thinking: false } }), tokenizer.encode('[USER]GO[ASSISTANT]'));
    const bad = await chat(server.url, { chat_template_kwargs: 'no' });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error.message, /chat_template_kwargs: expected an object/);
    assert.equal((await chat(server.url, { enable_thinking: 'yes' })).status, 400);
  } finally {
    await server.close();
    folder.remove();
  }
});

test('a generation stops at any eos_token_id of generation_config.json', async () => {
  const folder = makeTinyModelDir({ chatTemplate: template });
  const greedy = { temperature: 0, max_tokens: 8, chat_template_kwargs: { enable_thinking: false } };
  let first: number[];
  let server = await startServer({ models: loadServedModels(createReferenceKernels(), folder.dir), port: 0, log: () => {} });
  try {
    first = (await chat(server.url, greedy)).json.choices[0].token_ids;
  } finally {
    await server.close();
  }
  // Make the third greedy token (one not seen before it) a stop token, among others.
  const at = first.findIndex((id, i) => i >= 2 && !first.slice(0, i).includes(id));
  assert.ok(at >= 2, `the greedy answer ${first} needs a new token after two`);
  const unused = [...Array(64).keys()].find((id) => !first.includes(id))!;
  writeFileSync(join(folder.dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [unused, first[at]!] }));
  server = await startServer({ models: loadServedModels(createReferenceKernels(), folder.dir), port: 0, log: () => {} });
  try {
    const choice = (await chat(server.url, greedy)).json.choices[0];
    assert.deepEqual(choice.token_ids, first.slice(0, at + 1), 'the same greedy tokens, ending with the stop token');
    assert.equal(choice.finish_reason, 'stop');
  } finally {
    await server.close();
    folder.remove();
  }
});
