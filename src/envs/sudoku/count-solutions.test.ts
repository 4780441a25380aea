import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countSolutions, solveSudoku } from './count-solutions.js';
import { candidates, cellIndex, EMPTY } from './sudoku-grid.js';

const SOLUTION = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];

/** Every row, column and box holds 1-4 exactly once. */
function isValidFull(cells: readonly number[]): boolean {
  return cells.every((v, i) => {
    const rest = [...cells];
    rest[i] = EMPTY;
    return v >= 1 && v <= 4 && candidates(rest, i).includes(v);
  });
}

test('the empty 4x4 grid has the 288 known completions', () => {
  assert.equal(countSolutions(new Array(16).fill(0), 1000), 288);
});

test('countSolutions stops at its limit and sees uniqueness', () => {
  assert.equal(countSolutions(new Array(16).fill(0), 2), 2);
  assert.equal(countSolutions(SOLUTION), 1);
  const oneHole = [...SOLUTION];
  oneHole[5] = EMPTY;
  assert.equal(countSolutions(oneHole), 1);
  // Keeping only the first row leaves several completions.
  const firstRow = SOLUTION.map((v, i) => (i < 4 ? v : EMPTY));
  assert.ok(countSolutions(firstRow, 10) > 1);
});

test('a board that already breaks a unit has no solution', () => {
  const broken = new Array(16).fill(0);
  broken[cellIndex(0, 0)] = 3;
  broken[cellIndex(1, 1)] = 3; // same box
  assert.equal(countSolutions(broken), 0);
  assert.equal(solveSudoku(broken), undefined);
});

test('a legal board can still be a dead end', () => {
  // Row 1 needs a 4 at (1,4) but column 4 already has one: legal, yet unsolvable.
  const dead = new Array(16).fill(0);
  [1, 2, 3].forEach((v, c) => (dead[cellIndex(0, c)] = v));
  dead[cellIndex(3, 3)] = 4;
  assert.equal(countSolutions(dead), 0);
  assert.equal(solveSudoku(dead), undefined);
});

test('solveSudoku fills a puzzle to its unique solution and keeps the givens', () => {
  const puzzle = SOLUTION.map((v, i) => ([0, 2, 5, 7, 8, 10, 13, 15].includes(i) ? v : EMPTY));
  assert.equal(countSolutions(puzzle), 1);
  assert.deepEqual(solveSudoku(puzzle), SOLUTION);
  const open = solveSudoku(new Array(16).fill(0));
  assert.ok(open !== undefined && isValidFull(open));
});
