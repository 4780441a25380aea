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
