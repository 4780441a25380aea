// A natural-format role on a reasoning model's reply (Qwen3 thinks first, then answers),
// read through parseCompletion, the one place every rollout mode parses. The Qwen3 fixture
// test (src/policy/qwen3-fixture.test.ts) checks the same on ids of the real tokenizer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMoves } from '../envs/grid/parse-moves.js';
import type { Role } from '../envs/types.js';
import { parseCompletion } from './apply-completion.js';

const role = { parse: (text: string) => parseMoves(text, { format: 'natural', maxMoves: 8 }) } as unknown as Role<any, any>;
const completion = (text: string) => ({ text, finishReason: 'stop' as const });

test('a thinking reply: the role reads what follows </think>, not the moves and code blocks inside the thinking', () => {
  const reply = '<think>\nLeft is a wall. Answer: L?\n```\nL\n```\nNo, that hits it.\n</think>\n\nU, R';
  assert.deepEqual(role.parse(reply), { ok: true, action: ['L'] }, 'read whole, the thinking would win');
  assert.deepEqual(parseCompletion(role, completion(reply)).parsed, { ok: true, action: ['U', 'R'] });
});

test('a reply cut off inside <think> is a failure naming the fix; a reply without tags is read as it is', () => {
  assert.deepEqual(parseCompletion(role, completion('<think>\nUp, then right, then')).parsed, {
    ok: false,
    reason: 'the reply ended inside <think> before any answer; raise rollout.max_tokens or set model.enable_thinking: false',
  });
  assert.deepEqual(parseCompletion(role, completion('Answer: D, D')).parsed, { ok: true, action: ['D', 'D'] });
  // Thinking off (the empty think block is in the prompt) or opened by the template: only the close shows.
  assert.deepEqual(parseCompletion(role, completion('</think>\n\nL')).parsed, { ok: true, action: ['L'] });
  // A failed generation keeps its own reason.
  assert.match(JSON.stringify(parseCompletion(role, { text: '', finishReason: 'error', error: 'boom' }).parsed), /generation error: boom/);
});
