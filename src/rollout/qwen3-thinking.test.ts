// A Qwen3 thinking reply as the sampler hands it over: ids of the real Qwen3 tokenizer, where
// <think> and </think> are single non-special tokens, so decoding without special tokens keeps
// them; parseCompletion then gives the role only the answer after </think>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QWEN3, qwen3TokenizerPath } from '../engine/io/qwen3-model.test-helper.js';
import { readTokenizer } from '../engine/tokenizer/load-tokenizer.js';
import { parseMoves } from '../envs/grid/parse-moves.js';
import type { Role } from '../envs/types.js';
import { parseCompletion } from './apply-completion.js';

test('Qwen3 thinking reply: the tags are single ids that survive decoding, and the role reads the answer after them', () => {
  const tokenizer = readTokenizer(qwen3TokenizerPath());
  const reply = '<think>\nLeft is a wall. Answer: L?\n</think>\n\nU, R';
  const ids = tokenizer.encode(reply);
  assert.deepEqual(ids.filter((id) => id >= QWEN3.endOfText), [QWEN3.think, QWEN3.thinkEnd]);
  const text = tokenizer.decode(ids, { skipSpecial: true }); // as the sampler decodes
  assert.equal(text, reply);
  const role = { parse: (t: string) => parseMoves(t, { format: 'natural', maxMoves: 8 }) } as unknown as Role<any, any>;
  assert.deepEqual(parseCompletion(role, { text, ids, finishReason: 'stop' }).parsed, { ok: true, action: ['U', 'R'] });
});
