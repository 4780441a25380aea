/**
 * Assigns every possible puzzle to exactly one split by a hash of its givens. A 4x4 Sudoku has
 * only 288 full grids, so independent seed streams alone would hand the same puzzle to both
 * splits now and then (measured: 2 of 1,000 eval puzzles also in the first 1,000 train ones at
 * 10 holes); drawing until the puzzle's hash matches the split makes them disjoint for sure.
 */
import { invariant } from '../../util/errors.js';
import { type Rng, deriveSeed } from '../../util/rng.js';
import type { Split } from '../types.js';
import { type SudokuPuzzle, generateSudoku } from './generate-sudoku.js';
import type { Cells } from './sudoku-grid.js';

export function puzzleSplit(givens: Cells): Split {
  return (deriveSeed(0, 'sudoku-split', givens.join('')) & 1) === 0 ? 'train' : 'eval';
}

/** Half of all puzzles fit a split, so this takes two draws on average. */
const MAX_DRAWS = 200;

export function generateSudokuForSplit(rng: Rng, options: { holes: number; split: Split }): SudokuPuzzle {
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const puzzle = generateSudoku(rng, { holes: options.holes });
    if (puzzleSplit(puzzle.givens) === options.split) return puzzle;
  }
  invariant(false, `no ${options.split} sudoku puzzle in ${MAX_DRAWS} draws`);
}
