/**
 * Cells of an h x w grid are numbered row-major (`cell = row * width + col`), so a board is a
 * flat typed array and a position is one number: cheap to copy, hash and compare.
 */
import { DIRECTION_DELTAS } from './direction.js';
import type { Direction } from './types.js';

export interface GridShape {
  readonly height: number;
  readonly width: number;
}

export function cellCount(shape: GridShape): number {
  return shape.height * shape.width;
}

export function cellAt(shape: GridShape, row: number, col: number): number {
  return row * shape.width + col;
}

export function rowOf(shape: GridShape, cell: number): number {
  return Math.floor(cell / shape.width);
}

export function colOf(shape: GridShape, cell: number): number {
  return cell % shape.width;
}

/** The cell one move away, or -1 when the move leaves the grid. */
export function neighbor(shape: GridShape, cell: number, dir: Direction): number {
  const [dr, dc] = DIRECTION_DELTAS[dir];
  const row = rowOf(shape, cell) + dr;
  const col = colOf(shape, cell) + dc;
  if (row < 0 || row >= shape.height || col < 0 || col >= shape.width) return -1;
  return cellAt(shape, row, col);
}
