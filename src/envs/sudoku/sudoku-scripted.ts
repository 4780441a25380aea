/**
 * The model-free Sudoku player. It reads the board back from the prompt text (either format),
 * solves it, and writes one fill per empty cell: with probability `skill` the solution's digit
 * for a not-yet-written empty cell, otherwise a uniformly random (row, column, digit), which may
 * hit a given or conflict, never more fills than the cap the prompt states (`M16`, "at most 16
 * fills"). Skill 1 therefore solves a puzzle in its first answer when holes <= max_fills, and
 * in ceil(holes / max_fills) turns otherwise. When the
 * board on the prompt has no completion (an earlier wrong but legal fill), every fill is random.
 * The plan role ignores the tool's proposal: its answer depends on the board alone. A compact
 * prompt with a `CELL` line (`hint: cell`) is followed: the answer is one fill of the named cell,
 * the solution's digit with probability `skill`, otherwise a uniformly random digit, so the
 * demonstrations teach the format and leave the digit to be learned; a random digit is never
 * the one a `LAST` line (`history: last`) shows rejected at that cell on the previous turn.
 * In the natural format the tool answers with a Python program (SUDOKU_PROGRAM below) that
 * solves the board itself and prints the same choices.
 */
import { fencedPython } from '../grid/scripted-program.js';
import type { Rng } from '../../util/rng.js';
import { readCellHint } from './cell-hint.js';
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

/**
 * The natural-format tool's program: the board, a backtracking solver, and the scripted
 * player's choices in answer order: `(row, column)` = that cell's digit from the solution the
 * program computes, `(row, column, digit)` = a random guess.
 */
const SUDOKU_PROGRAM = `N, BOX = 4, 2


def candidates(grid, r, c):
    used = set(grid[r]) | {grid[i][c] for i in range(N)}
    br, bc = r - r % BOX, c - c % BOX
    used |= {grid[i][j] for i in range(br, br + BOX) for j in range(bc, bc + BOX)}
    return [d for d in range(1, N + 1) if d not in used]


def solve(grid):
    for r in range(N):
        for c in range(N):
            if grid[r][c] == 0:
                for d in candidates(grid, r, c):
                    grid[r][c] = d
                    if solve(grid):
                        return True
                grid[r][c] = 0
                return False
    return True


solution = [[0 if ch == "." else int(ch) for ch in row] for row in BOARD]
solve(solution)
for step in STEPS:
    r, c = step[0], step[1]
    d = step[2] if len(step) == 3 else solution[r - 1][c - 1]
    print(f"({r}, {c}, {d})")
`;

function sudokuProgram(cells: readonly number[], fills: readonly (Fill & { solved: boolean })[]): string {
  const rows: string[] = [];
  for (let r = 0; r < SUDOKU_SIZE; r++) {
    rows.push(JSON.stringify(cells.slice(r * SUDOKU_SIZE, (r + 1) * SUDOKU_SIZE).map((v) => (v === EMPTY ? '.' : String(v))).join('')));
  }
  const steps = fills.map((f) => (f.solved ? `(${f.row}, ${f.col})` : `(${f.row}, ${f.col}, ${f.digit})`));
  return [`BOARD = [${rows.join(', ')}]`, `STEPS = [${steps.join(', ')}]`, SUDOKU_PROGRAM].join('\n');
}

/** The digit a `LAST rcd X` line shows rejected at cell `index`, if any. */
function rejectedDigit(prompt: string, index: number): number | undefined {
  const last = /^LAST (\d)(\d)(\d) X$/m.exec(prompt);
  if (last === null) return undefined;
  const at = (Number(last[1]) - 1) * SUDOKU_SIZE + (Number(last[2]) - 1);
  return at === index ? Number(last[3]) : undefined;
}

/** One `RCD` fill of the cell a `CELL` line names. */
function namedCellFill(index: number, solution: readonly number[] | undefined, skill: number, rng: Rng, rejected: number | undefined): string {
  const known = solution !== undefined && rng.next() < skill;
  let digit = known ? (solution[index] as number) : 1 + rng.int(SUDOKU_SIZE);
  // A guess skips the digit just rejected there (one of the other three, uniformly).
  if (!known && rejected !== undefined && digit === rejected) digit = 1 + ((rejected + rng.int(SUDOKU_SIZE - 1)) % SUDOKU_SIZE);
  return `${Math.floor(index / SUDOKU_SIZE) + 1}${(index % SUDOKU_SIZE) + 1}${digit}`;
}

export const sudokuScripted: ScriptedResponder = ({ role, prompt, skill, rng }) => {
  const read = readPromptGrid(prompt);
  // No board in the prompt: answer with text the parsers reject, so the failure is recorded.
  if (read === undefined) return 'no board found\n';
  const solution = solveSudoku(read.cells);
  const open: number[] = [];
  read.cells.forEach((v, i) => {
    if (v === EMPTY) open.push(i);
  });
  const named = read.format === 'compact' ? readCellHint(prompt) : undefined;
  if (named !== undefined) return `${namedCellFill(named, solution, skill, rng, rejectedDigit(prompt, named))}\n`;
  const fills: (Fill & { solved: boolean })[] = [];
  const count = Math.min(readMaxFills(prompt) ?? open.length, Math.max(1, open.length));
  for (let k = 0; k < count; k++) {
    if (solution !== undefined && open.length > 0 && rng.next() < skill) {
      const index = open.splice(rng.int(open.length), 1)[0] as number;
      fills.push({ row: Math.floor(index / SUDOKU_SIZE) + 1, col: (index % SUDOKU_SIZE) + 1, digit: solution[index] as number, solved: true });
    } else {
      fills.push({ row: 1 + rng.int(SUDOKU_SIZE), col: 1 + rng.int(SUDOKU_SIZE), digit: 1 + rng.int(SUDOKU_SIZE), solved: false });
    }
  }
  if (role === 'tool' && read.format === 'natural') return fencedPython(sudokuProgram(read.cells, fills));
  if (read.format === 'compact') return `${fills.map((f) => `${f.row}${f.col}${f.digit}`).join(' ')}\n`;
  return `Answer: ${fills.map((f) => `(${f.row}, ${f.col}, ${f.digit})`).join(', ')}`;
};
