import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from './api-error.js';
import { parseChatRequest, parseCompletionRequest } from './parse-request.js';

function refused(fn: () => unknown, param: string | null, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.status === 400 && e.param === param && pattern.test(e.message));
}

test('completions: defaults, prompt forms, stop forms, vLLM extras', () => {
  const r = parseCompletionRequest({ model: 'm', prompt: 'A' });
  assert.deepEqual([r.n, r.temperature, r.topP, r.topK, r.maxTokens, r.stop, r.seed, r.logprobs, r.stream], [1, 1, 1, 0, undefined, [], undefined, undefined, false]);
  assert.deepEqual(parseCompletionRequest({ model: 'm', prompt: ['A', 'B'] }).prompts, [{ text: 'A' }, { text: 'B' }]);
  assert.deepEqual(parseCompletionRequest({ model: 'm', prompt: [1, 2] }).prompts, [{ ids: [1, 2] }]);
  assert.deepEqual(parseCompletionRequest({ model: 'm', prompt: [[1], [2, 3]] }).prompts, [{ ids: [1] }, { ids: [2, 3] }]);
  assert.deepEqual(parseCompletionRequest({ model: 'm', prompt: 'A', stop: '\n' }).stop, ['\n']);
  const extras = parseCompletionRequest({ model: 'm', prompt: 'A', top_k: -1, logprobs: 2, return_tokens_as_token_ids: true, stream: true, stream_options: { include_usage: true }, user: 'x', presence_penalty: 0 });
  assert.deepEqual([extras.topK, extras.logprobs, extras.tokensAsIds, extras.includeUsage], [0, { top: 2 }, true, true]);
});

test('completions: each bad field is named', () => {
  refused(() => parseCompletionRequest({ prompt: 'A' }), 'model', /model name/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: [] }), 'prompt', /non-empty/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: ['A', [1]] }), 'prompt', /expected/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: 'A', n: 1.5 }), 'n', /integer from 1/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: 'A', top_p: 0 }), 'top_p', /\(0, 1\]/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: 'A', stop: [''] }), 'stop', /non-empty/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: 'A', seed: 'x' }), 'seed', /integer/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: 'A', logprobs: 21 }), 'logprobs', /0 to 20/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: 'A', best_of: 3 }), 'best_of', /best_of = n/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: 'A', suffix: 'B' }), 'suffix', /not supported/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: 'A', max_tokens: -1 }), 'max_tokens', /integer >= 0 \(0 only with echo\)/);
  refused(() => parseCompletionRequest({ model: 'm', prompt: ['A', 'B'], n: 200 }), 'n', /more than 256/);
  refused(() => parseCompletionRequest('text'), null, /JSON object/);
});

test('chat: messages, text parts, logprobs flags, max_completion_tokens', () => {
  const r = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }] }], logprobs: true, top_logprobs: 3, max_completion_tokens: 5 });
  assert.deepEqual(r.messages, [{ role: 'user', content: 'AB' }]);
  assert.deepEqual([r.logprobs, r.maxTokens, r.addGenerationPrompt], [{ top: 3 }, 5, true]);
  refused(() => parseChatRequest({ model: 'm', messages: [{ content: 'A' }] }), 'messages[0]', /role/);
  refused(() => parseChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }), 'messages[0].content', /images/);
  refused(() => parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'A' }], top_logprobs: 2 }), 'top_logprobs', /logprobs": true/);
  refused(() => parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'A' }], tools: [{ type: 'function' }] }), 'tools', /not supported/);
  refused(() => parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'A' }], max_tokens: 0 }), 'max_tokens', /positive integer/);
});

test('a refusal names the field by its path and says what it takes and what it got', () => {
  const chat = { model: 'm', messages: [{ role: 'user', content: 'A' }] };
  const cases: ReadonlyArray<[() => unknown, string | null, string, string]> = [
    [() => parseCompletionRequest({ model: 'm', prompt: 'A', n: 0 }), 'n', 'n: expected an integer from 1 to 256, got 0', 'invalid_value'],
    [() => parseCompletionRequest({ model: 'm', prompt: 'A', n: 1e300 }), 'n', 'n: expected an integer from 1 to 256, got 1e+300', 'invalid_value'],
    [() => parseCompletionRequest({ model: 'm', prompt: 'A', temperature: '1' }), 'temperature', 'temperature: expected a number >= 0 (0 = greedy), got "1"', 'invalid_value'],
    [() => parseCompletionRequest({ model: 'm', prompt: 'A', stop: ['a', ''] }), 'stop', 'stop: expected a non-empty string or a list of non-empty strings, got ["a",""]', 'invalid_value'],
    [() => parseCompletionRequest({ model: 'm', prompt: 'A', stream_options: { include_usage: 1 } }), 'stream_options.include_usage', 'stream_options.include_usage: expected true or false, got 1', 'invalid_value'],
    [() => parseCompletionRequest({ model: 'm', prompt: 'A', logit_bias: { 5: 1 } }), 'logit_bias', 'logit_bias: {"5":1} is not supported by troupe serve; remove the field', 'unsupported_parameter'],
    [() => parseCompletionRequest({ model: '', prompt: 'A' }), 'model', 'model: expected a model name (see GET /v1/models), got ""', 'missing_model'],
    [() => parseCompletionRequest({ model: 'm', prompt: 'A', echo: 'yes' }), 'echo', 'echo: expected true or false, got "yes"', 'invalid_value'],
    [() => parseChatRequest({ ...chat, echo: true }), 'echo', 'echo: true is not supported by troupe serve; remove the field', 'unsupported_parameter'],
    [() => parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'A' }, 'B'] }), 'messages[1]', 'messages[1]: expected an object with a string "role", got "B"', 'invalid_value'],
    [() => parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 7 }] }), 'messages[0].content', 'messages[0].content: expected a string or a list of {"type": "text", "text": ...} parts (images and audio are not supported)', 'invalid_value'],
    [() => parseChatRequest({ ...chat, chat_template_kwargs: { enable_thinking: 'no' } }), 'chat_template_kwargs.enable_thinking', 'chat_template_kwargs.enable_thinking: expected true or false, got "no"', 'invalid_value'],
    [() => parseChatRequest(null), null, 'the request body must be a JSON object, got null', null as unknown as string],
  ];
  for (const [call, param, message, code] of cases) {
    assert.throws(call, (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.deepEqual([e.status, e.param, e.message, e.code], [400, param, message, code]);
      return true;
    });
  }
});

test('null is "not given", neutral values of unsupported fields and unknown fields pass', () => {
  const r = parseCompletionRequest({ model: 'm', prompt: 'A', n: null, temperature: null, stop: null, seed: null, logprobs: null, presence_penalty: 0, logit_bias: {}, suffix: null, user: 'u', metadata: { x: 1 } });
  assert.deepEqual([r.n, r.temperature, r.stop, r.seed, r.logprobs], [1, 1, [], undefined, undefined]);
  const c = parseChatRequest({ model: 'm', messages: [{ role: 'system' }, { role: 'user', content: null }], tools: [], tool_choice: null, enable_thinking: null, chat_template_kwargs: { enable_thinking: false, custom: 1 } });
  assert.deepEqual(c.messages, [{ role: 'system', content: '' }, { role: 'user', content: '' }]);
  assert.deepEqual([c.enableThinking, c.chatTemplateKwargs], [false, { enable_thinking: false, custom: 1 }]);
});
