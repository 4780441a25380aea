import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sudokuTask } from './index.js';

function issues(input: unknown) {
  const result = sudokuTask.optionsSchema.safeParse(input);
  assert.equal(result.success, false, JSON.stringify(input));
  return result.error?.issues ?? [];
}

test('options default to a 4x4 grid, 8 holes and 16 fills per answer', () => {
  assert.deepEqual(sudokuTask.optionsSchema.parse({}), { size: 4, holes: 8, max_fills: 16, hint: 'none' });
  assert.deepEqual(sudokuTask.optionsSchema.parse({ holes: 12, max_fills: 3 }), { size: 4, holes: 12, max_fills: 3, hint: 'none' });
  assert.equal(sudokuTask.defaultMaxTurns, 3);
  assert.equal(sudokuTask.name, 'sudoku');
});

test('an unknown option key is rejected, naming it and the allowed keys', () => {
  const [issue] = issues({ holse: 8 });
  assert.match(issue?.message ?? '', /"holse"/);
  assert.match(issue?.message ?? '', /allowed: size, holes, max_fills/);
});

test('bad values are rejected with the key in the path and in the message', () => {
  for (const [key, value] of [
    ['size', 9],
    ['size', '4'],
    ['holes', 0],
    ['holes', 13],
    ['holes', 2.5],
    ['holes', '8'],
    ['max_fills', 0],
    ['max_fills', 65],
  ] as const) {
    const [issue] = issues({ [key]: value });
    assert.deepEqual(issue?.path, [key], `${key}=${value}`);
    assert.match(issue?.message ?? '', new RegExp(key), `${key}=${value}`);
  }
});
