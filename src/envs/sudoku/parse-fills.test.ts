import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCompactFills, parseNaturalFills } from './parse-fills.js';

test('compact: RCD tokens before the first newline, spaces tolerated', () => {
  assert.deepEqual(parseCompactFills('  122 341 \n999', 16), {
    ok: true,
    action: [
      { row: 1, col: 2, digit: 2 },
      { row: 3, col: 4, digit: 1 },
    ],
  });
  // Out-of-range digits parse; the env rejects them as fills (and says why).
  assert.deepEqual(parseCompactFills('059', 16), { ok: true, action: [{ row: 0, col: 5, digit: 9 }] });
});

test('compact: any other token, nothing, or too many fills is a failure with a reason', () => {
  const bad = parseCompactFills('122 1x2', 16);
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.reason : '', /"1x2"/);
  for (const text of ['', '\n122', '12', '1223', '(1,2,2)']) assert.equal(parseCompactFills(text, 16).ok, false, text);
  const many = parseCompactFills('111 '.repeat(5), 4);
  assert.equal(many.ok, false);
  assert.match(!many.ok ? many.reason : '', /5 > max_fills 4/);
});

test('natural: triples and rNcM references after the last Answer:', () => {
  const text = 'First I try (9, 9, 9) but no.\nAnswer: (1, 2, 4), (3,1,2) and r4c4=1, R2C3: 3';
  assert.deepEqual(parseNaturalFills(text, 16), {
    ok: true,
    action: [
      { row: 1, col: 2, digit: 4 },
      { row: 3, col: 1, digit: 2 },
      { row: 4, col: 4, digit: 1 },
      { row: 2, col: 3, digit: 3 },
    ],
  });
});

test('natural: without Answer:, the last code block wins; else the whole text', () => {
  const fenced = 'Try (1, 1, 1)?\n```\n(2, 2, 2)\n```\nthen\n```text\n(3, 3, 3)\n```';
  assert.deepEqual(parseNaturalFills(fenced, 16), { ok: true, action: [{ row: 3, col: 3, digit: 3 }] });
  assert.deepEqual(parseNaturalFills('fill (4, 1, 2)', 16), { ok: true, action: [{ row: 4, col: 1, digit: 2 }] });
});

test('natural: no fills or too many is a failure', () => {
  assert.equal(parseNaturalFills('I cannot solve this.', 16).ok, false);
  assert.equal(parseNaturalFills('Answer: (1, 2, 4), (3, 1, 2)', 1).ok, false);
});
