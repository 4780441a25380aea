/**
 * The `hint: cell` header line of compact Sudoku prompts: which empty cell to fill next and the
 * three units it sits in, restated from the board.
 *
 *     CELL 23 ROW 1.3. COL ..4. BOX 3.1.
 *
 * The cell is the empty one with the fewest candidates on the board as it stands (ties in
 * reading order), so its digit follows from its units whenever the puzzle allows it at all.
 * The line is computed by the rules from the board alone, never from the solution: a board that
 * an earlier wrong fill made unsolvable can name a cell with no candidate left. The units are
 * written in reading order (the box row by row), `.` for empty, the cell itself included.
 * What is left to the model: which digit is missing from the three units.
 */
import { type Cells, BOX_SIZE, CELL_COUNT, EMPTY, SUDOKU_SIZE, candidates } from './sudoku-grid.js';

/** The empty cell with the fewest candidates (first in reading order on ties), or undefined on a full board. */
export function nextCell(cells: Cells): number | undefined {
  let best: number | undefined;
  let fewest = Infinity;
  for (let i = 0; i < CELL_COUNT; i++) {
    if (cells[i] !== EMPTY) continue;
    const count = candidates(cells, i).length;
    if (count < fewest) {
      best = i;
      fewest = count;
    }
  }
  return best;
}

function unitText(cells: Cells, indices: readonly number[]): string {
  return indices.map((i) => (cells[i] === EMPTY ? '.' : String(cells[i]))).join('');
}

/** The cells of the row, column and box of `index`, each in reading order. */
export function unitsOf(index: number): { row: number[]; col: number[]; box: number[] } {
  const r = Math.floor(index / SUDOKU_SIZE);
  const c = index % SUDOKU_SIZE;
  const range = Array.from({ length: SUDOKU_SIZE }, (_, k) => k);
  const top = r - (r % BOX_SIZE);
  const left = c - (c % BOX_SIZE);
  const box = range.map((k) => (top + Math.floor(k / BOX_SIZE)) * SUDOKU_SIZE + left + (k % BOX_SIZE));
  return { row: range.map((k) => r * SUDOKU_SIZE + k), col: range.map((k) => k * SUDOKU_SIZE + c), box };
}

/** `CELL 23 ROW 1.3. COL ..4. BOX 3.1.` (row, column 1-based), or `CELL -` on a full board. */
export function cellHintLine(cells: Cells): string {
  const index = nextCell(cells);
  if (index === undefined) return 'CELL -';
  const units = unitsOf(index);
  const name = `${Math.floor(index / SUDOKU_SIZE) + 1}${(index % SUDOKU_SIZE) + 1}`;
  return `CELL ${name} ROW ${unitText(cells, units.row)} COL ${unitText(cells, units.col)} BOX ${unitText(cells, units.box)}`;
}

/** The cell a `CELL` line names (0-based index), or undefined when the prompt has none. */
export function readCellHint(prompt: string): number | undefined {
  const m = /^CELL ([1-4])([1-4]) /m.exec(prompt);
  return m === null ? undefined : (Number(m[1]) - 1) * SUDOKU_SIZE + Number(m[2]) - 1;
}
