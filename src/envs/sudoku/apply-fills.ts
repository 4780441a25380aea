/**
 * Judges and applies a list of fills to a board: the one transition function of the Sudoku
 * task. Pure: the tool role runs it on a copy to simulate a proposal, the plan and agent roles
 * run it to commit, so a simulation and a commit of the same fills always agree.
 */
import { roundReward } from '../grid/format-reward.js';
import { SUDOKU_REWARDS } from './sudoku-rewards.js';
import {
  type Cells,
  type Unit,
  EMPTY,
  SUDOKU_SIZE,
  cellIndex,
  conflictUnits,
  fillProgress,
  emptyCount,
  sameCells,
} from './sudoku-grid.js';

/** One fill as written by a model: 1-based row and column, and a digit. Not yet validated. */
export interface Fill {
  readonly row: number;
  readonly col: number;
  readonly digit: number;
}

/** `ok`: applied; `given`: the cell is a given; `range`: row, col or digit outside 1-4; `conflict`: the digit repeats in a unit. */
export type FillVerdict = 'ok' | 'given' | 'range' | 'conflict';

export interface FillResult {
  readonly fill: Fill;
  readonly verdict: FillVerdict;
  /** For `conflict`: the units that already hold the digit. */
  readonly units?: readonly Unit[];
}

export interface FillsOutcome {
  /** The board after the valid fills (a new array; the input is never mutated). */
  readonly cells: number[];
  readonly results: readonly FillResult[];
  readonly reward: number;
  /** The board equals the solution after the fills (and did not before). */
  readonly solved: boolean;
  /** Empty cells left after the fills. */
  readonly empty: number;
}

function inRange(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= SUDOKU_SIZE;
}

/** Judges each fill against the board as left by the fills before it, in order. */
export function applyFills(options: {
  cells: Cells;
  givens: Cells;
  solution: Cells;
  fills: readonly Fill[];
}): FillsOutcome {
  const { givens, solution, fills } = options;
  const cells = [...options.cells];
  const wasSolved = sameCells(cells, solution);
  const progressBefore = fillProgress(cells, givens, solution);
  const results: FillResult[] = [];
  let reward = 0;
  for (const fill of fills) {
    if (!inRange(fill.row) || !inRange(fill.col) || !inRange(fill.digit)) {
      results.push({ fill, verdict: 'range' });
      reward += SUDOKU_REWARDS.invalidFill;
      continue;
    }
    const index = cellIndex(fill.row - 1, fill.col - 1);
    if (givens[index] !== EMPTY) {
      results.push({ fill, verdict: 'given' });
      reward += SUDOKU_REWARDS.invalidFill;
      continue;
    }
    const units = conflictUnits(cells, index, fill.digit);
    if (units.length > 0) {
      results.push({ fill, verdict: 'conflict', units });
      reward += SUDOKU_REWARDS.invalidFill;
      continue;
    }
    cells[index] = fill.digit;
    results.push({ fill, verdict: 'ok' });
    reward += SUDOKU_REWARDS.fillCost;
  }
  reward += SUDOKU_REWARDS.correctFillShaping * (fillProgress(cells, givens, solution) - progressBefore);
  const solved = !wasSolved && sameCells(cells, solution);
  if (solved) reward += SUDOKU_REWARDS.solveBonus;
  return { cells, results, reward: roundReward(reward), solved, empty: emptyCount(cells) };
}
