import { DIRECTIONS } from './direction.js';
import { cellCount, neighbor, type GridShape } from './grid-shape.js';

/** Distance value of a cell no source can reach. */
export const UNREACHABLE = -1;

/**
 * Breadth-first move distances from a set of source cells over the cells where `passable` is
 * true (sources count as passable). Returns one distance per cell, UNREACHABLE where none.
 * Used for Plan-Path's goal distance and optimum, Sokoban's box-to-goal distance, and
 * connectivity checks in the generators.
 */
export function bfsDistances(options: {
  shape: GridShape;
  passable: (cell: number) => boolean;
  sources: readonly number[];
}): Int32Array {
  const { shape, passable, sources } = options;
  const dist_N = new Int32Array(cellCount(shape)).fill(UNREACHABLE);
  const queue = new Int32Array(cellCount(shape));
  let head = 0;
  let tail = 0;
  for (const source of sources) {
    if (dist_N[source] !== UNREACHABLE) continue;
    dist_N[source] = 0;
    queue[tail++] = source;
  }
  while (head < tail) {
    const cell = queue[head++]!;
    for (const dir of DIRECTIONS) {
      const next = neighbor(shape, cell, dir);
      if (next < 0 || dist_N[next] !== UNREACHABLE || !passable(next)) continue;
      dist_N[next] = dist_N[cell]! + 1;
      queue[tail++] = next;
    }
  }
  return dist_N;
}
