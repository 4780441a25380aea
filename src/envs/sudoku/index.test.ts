import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sudokuGlobalReward, sudokuTask } from './index.js';
import { OPEN_PUZZLE, SOLVING_FILLS, assertClose, puzzleEnv } from './sudoku-fixtures.test-helper.js';

function issues(input: unknown) {
  const result = sudokuTask.optionsSchema.safeParse(input);
  assert.equal(result.success, false, JSON.stringify(input));
  return result.error?.issues ?? [];
}

test('options default to a 4x4 grid, 8 holes and 16 fills per answer', () => {
  assert.deepEqual(sudokuTask.optionsSchema.parse({}), { size: 4, holes: 8, max_fills: 16, hint: 'none', history: 'none' });
  assert.deepEqual(sudokuTask.optionsSchema.parse({ holes: 12, max_fills: 3 }), { size: 4, holes: 12, max_fills: 3, hint: 'none', history: 'none' });
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

test('the team reward counts right holes minus wrong ones, never below 0, and 1 when solved', () => {
  const env = puzzleEnv(OPEN_PUZZLE);
  assert.equal(sudokuGlobalReward(env), 0);
  env.commit([{ row: 2, col: 1, digit: 3 }, { row: 2, col: 2, digit: 4 }]);
  assertClose(sudokuGlobalReward(env), (0.5 * 2) / 12);
  env.commit([{ row: 2, col: 3, digit: 2 }]); // legal, but the solution has 1
  assertClose(sudokuGlobalReward(env), (0.5 * 1) / 12);
  env.commit([{ row: 3, col: 1, digit: 4 }, { row: 3, col: 2, digit: 3 }]); // two more wrong
  assert.equal(sudokuGlobalReward(env), 0);
  const solved = puzzleEnv();
  solved.commit(SOLVING_FILLS);
  assert.equal(sudokuGlobalReward(solved), 1);
});
