/**
 * The 4x4 Sudoku board: 16 cells in row-major order, 0 for an empty cell, digits 1-4 otherwise.
 * Rows, columns and the four 2x2 boxes are the "units"; a digit may appear once per unit.
 * Internally rows/columns are 0-based; every text the models see is 1-based.
 */

/** Side length of the grid. Only 4 is supported for now (the options schema enforces it). */
export const SUDOKU_SIZE = 4;
/** Side length of one box. */
export const BOX_SIZE = 2;
export const CELL_COUNT = SUDOKU_SIZE * SUDOKU_SIZE;
/** The value of an empty cell. */
export const EMPTY = 0;

/** A board as row-major cells; `cells_16[r * 4 + c]`. */
export type Cells = readonly number[];

export type Unit = 'row' | 'col' | 'box';
/** Units in the order messages list them. */
export const UNITS: readonly Unit[] = ['row', 'col', 'box'];

export function cellIndex(row: number, col: number): number {
  return row * SUDOKU_SIZE + col;
}

function boxOf(row: number, col: number): number {
  return Math.floor(row / BOX_SIZE) * BOX_SIZE + Math.floor(col / BOX_SIZE);
}

/** For each cell, the other cells of its row, column or box, with every unit they share. */
const PEERS_16: ReadonlyArray<ReadonlyArray<{ index: number; units: readonly Unit[] }>> = Array.from(
  { length: CELL_COUNT },
  (_, i) => {
    const row = Math.floor(i / SUDOKU_SIZE);
    const col = i % SUDOKU_SIZE;
    const peers: Array<{ index: number; units: Unit[] }> = [];
    for (let j = 0; j < CELL_COUNT; j++) {
      if (j === i) continue;
      const r = Math.floor(j / SUDOKU_SIZE);
      const c = j % SUDOKU_SIZE;
      const units: Unit[] = [];
      if (r === row) units.push('row');
      if (c === col) units.push('col');
      if (boxOf(r, c) === boxOf(row, col)) units.push('box');
      if (units.length > 0) peers.push({ index: j, units });
    }
    return peers;
  },
);

/**
 * The units in which placing `digit` at `index` would repeat a digit already on the board
 * (the cell's own content is ignored, so overwriting is judged on the other cells only).
 */
export function conflictUnits(cells: Cells, index: number, digit: number): Unit[] {
  const hit = new Set<Unit>();
  for (const peer of PEERS_16[index] ?? []) {
    if (cells[peer.index] === digit) for (const unit of peer.units) hit.add(unit);
  }
  return UNITS.filter((u) => hit.has(u));
}

/** Digits that can go at `index` without repeating a digit in its units. */
export function candidates(cells: Cells, index: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= SUDOKU_SIZE; d++) if (conflictUnits(cells, index, d).length === 0) out.push(d);
  return out;
}

export function emptyCount(cells: Cells): number {
  let n = 0;
  for (const v of cells) if (v === EMPTY) n++;
  return n;
}

/**
 * Non-given cells that match the solution minus those that hold another digit: the potential of
 * the shaping term. A wrong digit counts against it, so a legal but wrong fill (which leaves the
 * board without a completion) scores below a fill the rules reject (which changes nothing).
 */
export function fillProgress(cells: Cells, givens: Cells, solution: Cells): number {
  let n = 0;
  for (let i = 0; i < CELL_COUNT; i++) {
    if (givens[i] !== EMPTY || cells[i] === EMPTY) continue;
    n += cells[i] === solution[i] ? 1 : -1;
  }
  return n;
}

export function sameCells(a: Cells, b: Cells): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
