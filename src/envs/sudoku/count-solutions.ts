/**
 * Backtracking Sudoku solver. The generator uses `countSolutions` to keep only puzzles with a
 * unique solution; the scripted player uses `solveSudoku` on the grid it reads from a prompt.
 */
import { type Cells, CELL_COUNT, EMPTY, candidates } from './sudoku-grid.js';

/** True when no filled cell repeats a digit in one of its units. */
function consistent(work: number[]): boolean {
  for (let i = 0; i < CELL_COUNT; i++) {
    const v = work[i] as number;
    if (v === EMPTY) continue;
    work[i] = EMPTY;
    const ok = candidates(work, i).includes(v);
    work[i] = v;
    if (!ok) return false;
  }
  return true;
}

/**
 * Depth-first search over completions of `work` (mutated, restored on return). Calls
 * `onSolution` for each completion; stops as soon as it returns true.
 */
function search(work: number[], onSolution: (solution: number[]) => boolean): boolean {
  // Most-constrained empty cell first keeps the search tiny.
  let best = -1;
  let bestCandidates: number[] = [];
  for (let i = 0; i < CELL_COUNT; i++) {
    if (work[i] !== EMPTY) continue;
    const c = candidates(work, i);
    if (best === -1 || c.length < bestCandidates.length) {
      best = i;
      bestCandidates = c;
      if (c.length === 0) return false;
    }
  }
  if (best === -1) return onSolution([...work]);
  for (const d of bestCandidates) {
    work[best] = d;
    const stop = search(work, onSolution);
    if (stop) {
      work[best] = EMPTY;
      return true;
    }
  }
  work[best] = EMPTY;
  return false;
}

/**
 * Counts the completions of `cells` that satisfy every unit, stopping once `limit` are found
 * (uniqueness needs only limit 2). A board that already breaks a unit counts as 0.
 */
export function countSolutions(cells: Cells, limit = 2): number {
  const work = [...cells];
  if (!consistent(work)) return 0;
  let found = 0;
  search(work, () => ++found >= limit);
  return found;
}

/**
 * One completion of `cells`, or undefined when there is none (including a board that already
 * breaks a unit). For a puzzle with a unique solution this is that solution.
 */
export function solveSudoku(cells: Cells): number[] | undefined {
  const work = [...cells];
  if (!consistent(work)) return undefined;
  let solution: number[] | undefined;
  search(work, (s) => {
    solution = s;
    return true;
  });
  return solution;
}
