/**
 * Board text in both prompt formats, and the inverse: reading a board back out of a prompt
 * (the scripted player sees only prompt text, like a model). Kept in one file so the writer
 * and the reader cannot drift apart.
 *
 * compact (4 rows, `.` empty):   natural (boxes drawn):
 *   1.3.                           +-----+-----+
 *   ..1.                           | 1 . | 3 . |
 *   ....                           | . . | 1 . |
 *   2..4                           +-----+-----+
 *                                  | . . | . . |
 *                                  | 2 . | . 4 |
 *                                  +-----+-----+
 */
import { type Cells, BOX_SIZE, EMPTY, SUDOKU_SIZE } from './sudoku-grid.js';

export type PromptFormat = 'compact' | 'natural';

function cellChar(v: number | undefined): string {
  return v === undefined || v === EMPTY ? '.' : String(v);
}

function rowValues(cells: Cells, row: number): Array<number | undefined> {
  return cells.slice(row * SUDOKU_SIZE, (row + 1) * SUDOKU_SIZE);
}

export function renderCompactGrid(cells: Cells): string {
  const lines: string[] = [];
  for (let r = 0; r < SUDOKU_SIZE; r++) lines.push(rowValues(cells, r).map(cellChar).join(''));
  return lines.join('\n');
}

export function renderNaturalGrid(cells: Cells): string {
  const rule = `+${Array(SUDOKU_SIZE / BOX_SIZE).fill('-'.repeat(2 * BOX_SIZE + 1)).join('+')}+`;
  const lines: string[] = [rule];
  for (let r = 0; r < SUDOKU_SIZE; r++) {
    const values = rowValues(cells, r).map(cellChar);
    const boxes: string[] = [];
    for (let b = 0; b < SUDOKU_SIZE; b += BOX_SIZE) boxes.push(values.slice(b, b + BOX_SIZE).join(' '));
    lines.push(`| ${boxes.join(' | ')} |`);
    if ((r + 1) % BOX_SIZE === 0) lines.push(rule);
  }
  return lines.join('\n');
}

const COMPACT_ROW = /^([.1-4])([.1-4])([.1-4])([.1-4])$/;
const NATURAL_ROW = /^\|\s*([.1-4])\s+([.1-4])\s*\|\s*([.1-4])\s+([.1-4])\s*\|$/;

/**
 * The first board found in `prompt` (four consecutive row lines of one format) and that
 * format, or undefined when the prompt holds none. Natural box-rule lines are skipped.
 */
export function readPromptGrid(prompt: string): { cells: number[]; format: PromptFormat } | undefined {
  for (const [format, pattern] of [
    ['compact', COMPACT_ROW],
    ['natural', NATURAL_ROW],
  ] as const) {
    let cells: number[] = [];
    for (const raw of prompt.split('\n')) {
      const line = raw.trim();
      if (format === 'natural' && /^\+[-+]+\+$/.test(line)) continue;
      const m = pattern.exec(line);
      if (!m) {
        cells = [];
        continue;
      }
      for (const ch of m.slice(1)) cells.push(ch === '.' ? EMPTY : Number(ch));
      if (cells.length === SUDOKU_SIZE * SUDOKU_SIZE) return { cells, format };
    }
  }
  return undefined;
}
