import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SudokuEnv } from './sudoku-env.js';
import { OPEN_PUZZLE, PUZZLE, SOLUTION, SOLVING_FILLS, assertClose, puzzleEnv } from './sudoku-fixtures.test-helper.js';

test('a fresh env shows the givens and is not done', () => {
  const env = puzzleEnv();
  assert.deepEqual(env.cells, PUZZLE.givens);
  assert.equal(env.done, false);
  assert.equal(env.success, false);
  assert.equal(env.failureReason, undefined);
});

test('simulate leaves the board alone; commit applies the valid fills', () => {
  const env = puzzleEnv();
  const simulated = env.simulate(SOLVING_FILLS);
  assert.equal(simulated.solved, true);
  assert.deepEqual(env.cells, PUZZLE.givens);
  const committed = env.commit(SOLVING_FILLS);
  assertClose(committed.reward, simulated.reward);
  assert.deepEqual(env.cells, SOLUTION);
  assert.equal(env.done, true);
  assert.equal(env.success, true);
});

test('clones are independent in board and history, both ways', () => {
  const env = puzzleEnv();
  env.record({ turn: 0, role: 'tool', kind: 'proposal', fills: [], results: [], reward: 0, solved: false, empty: 8 });
  const clone = env.clone();
  assert.ok(clone instanceof SudokuEnv);
  clone.commit([{ row: 1, col: 2, digit: 2 }]);
  clone.record({ turn: 0, role: 'plan', kind: 'commit', fills: [], results: [], reward: 0, solved: false, empty: 7 });
  assert.deepEqual(env.cells, PUZZLE.givens);
  assert.equal(env.history.length, 1);
  env.commit([{ row: 1, col: 4, digit: 4 }]);
  assert.equal(clone.cells[3], 0);
  assert.equal(clone.cells[1], 2);
  assert.equal(clone.history.length, 2);
  assert.equal(clone.taskId, env.taskId);
});

test('a full board that is not the stored solution ends the episode as a failure', () => {
  // OPEN_PUZZLE gives only row 1, so rows 3 and 4 of SOLUTION swapped are also a valid grid.
  const env = new SudokuEnv('sudoku/test/1', OPEN_PUZZLE);
  const other = [3, 4, 1, 2, 4, 3, 2, 1, 2, 1, 4, 3];
  env.commit(other.map((digit, i) => ({ row: 2 + Math.floor(i / 4), col: 1 + (i % 4), digit })));
  assert.equal(env.done, true);
  assert.equal(env.success, false);
  assert.match(env.failureReason ?? '', /full but wrong/);
});
