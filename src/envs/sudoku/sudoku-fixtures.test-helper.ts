/**
 * Hand-made boards shared by the Sudoku tests (not a test file itself).
 *
 * SOLUTION        PUZZLE (8 holes, unique)
 *   1 2 3 4         1 . 3 .
 *   3 4 1 2         . 4 . 2
 *   2 1 4 3         2 . 4 .
 *   4 3 2 1         . 3 . 1
 */
import type { SudokuPuzzle } from './generate-sudoku.js';
import { SudokuEnv } from './sudoku-env.js';

export const SOLUTION = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
export const PUZZLE: SudokuPuzzle = {
  givens: [1, 0, 3, 0, 0, 4, 0, 2, 2, 0, 4, 0, 0, 3, 0, 1],
  solution: SOLUTION,
};
/** Only the first row given: many completions, so wrong-but-legal fills exist. */
export const OPEN_PUZZLE: SudokuPuzzle = {
  givens: [1, 2, 3, 4, ...new Array<number>(12).fill(0)],
  solution: SOLUTION,
};
/** The 8 fills that solve PUZZLE, as (row, col, digit). */
export const SOLVING_FILLS = [
  { row: 1, col: 2, digit: 2 },
  { row: 1, col: 4, digit: 4 },
  { row: 2, col: 1, digit: 3 },
  { row: 2, col: 3, digit: 1 },
  { row: 3, col: 2, digit: 1 },
  { row: 3, col: 4, digit: 3 },
  { row: 4, col: 1, digit: 4 },
  { row: 4, col: 3, digit: 2 },
];

export function puzzleEnv(puzzle: SudokuPuzzle = PUZZLE): SudokuEnv {
  return new SudokuEnv('sudoku/test/0', puzzle);
}

export function assertClose(actual: number, expected: number, label = ''): void {
  if (Math.abs(actual - expected) > 1e-9) throw new Error(`${label} expected ${expected}, got ${actual}`);
}
