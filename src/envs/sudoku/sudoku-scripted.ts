/**
 * The model-free Sudoku player. It reads the board back from the prompt text (either format),
 * solves it, and writes one fill per empty cell: with probability `skill` the solution's digit
 * for a not-yet-written empty cell, otherwise a uniformly random (row, column, digit), which may
 * hit a given or conflict, never more fills than the cap the prompt states (`M16`, "at most 16
 * fills"). Skill 1 therefore solves a puzzle in its first answer when holes <= max_fills, and
 * in ceil(holes / max_fills) turns otherwise. When the
 * board on the prompt has no completion (an earlier wrong but legal fill), every fill is random.
 * The plan role ignores the tool's proposal: its answer depends on the board alone.
 */
import type { ScriptedResponder } from '../types.js';
import type { Fill } from './apply-fills.js';
import { solveSudoku } from './count-solutions.js';
import { EMPTY, SUDOKU_SIZE } from './sudoku-grid.js';
import { readPromptGrid } from './sudoku-render.js';

/** The fill cap stated in the prompt (`M16` in the compact header, "at most 16 fills"). */
export function readMaxFills(prompt: string): number | undefined {
  const found = /^\S+ \d+\/\d+ M(\d+)$/m.exec(prompt)?.[1] ?? /at most (\d+) fills/.exec(prompt)?.[1];
  return found === undefined ? undefined : Number(found);
}

export const sudokuScripted: ScriptedResponder = ({ prompt, skill, rng }) => {
  const read = readPromptGrid(prompt);
  // No board in the prompt: answer with text the parsers reject, so the failure is recorded.
  if (read === undefined) return 'no board found\n';
  const solution = solveSudoku(read.cells);
  const open: number[] = [];
  read.cells.forEach((v, i) => {
    if (v === EMPTY) open.push(i);
  });
  const fills: Fill[] = [];
  const count = Math.min(readMaxFills(prompt) ?? open.length, Math.max(1, open.length));
  for (let k = 0; k < count; k++) {
    if (solution !== undefined && open.length > 0 && rng.next() < skill) {
      const index = open.splice(rng.int(open.length), 1)[0] as number;
      fills.push({ row: Math.floor(index / SUDOKU_SIZE) + 1, col: (index % SUDOKU_SIZE) + 1, digit: solution[index] as number });
    } else {
      fills.push({ row: 1 + rng.int(SUDOKU_SIZE), col: 1 + rng.int(SUDOKU_SIZE), digit: 1 + rng.int(SUDOKU_SIZE) });
    }
  }
  if (read.format === 'compact') return `${fills.map((f) => `${f.row}${f.col}${f.digit}`).join(' ')}\n`;
  return `Answer: ${fills.map((f) => `(${f.row}, ${f.col}, ${f.digit})`).join(', ')}`;
};
