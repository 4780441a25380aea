import { bfsDistances, UNREACHABLE } from '../grid/bfs-distances.js';
import { DIRECTIONS } from '../grid/direction.js';
import { neighbor, type GridShape } from '../grid/grid-shape.js';
import type { Direction } from '../grid/types.js';

/**
 * A shortest move list from `from` to `goal` (BFS), or undefined when the goal is unreachable.
 * Ties are broken in DIRECTIONS order, so the plan is deterministic.
 */
export function solvePlanPath(options: {
  shape: GridShape;
  walls: Uint8Array;
  from: number;
  goal: number;
  /** The goal's BFS distance map when already known (saves one BFS). */
  distToGoal?: Int32Array;
}): Direction[] | undefined {
  const { shape, walls, from, goal } = options;
  const dist_N = options.distToGoal ?? bfsDistances({ shape, passable: (cell) => walls[cell] === 0, sources: [goal] });
  if (walls[from] === 1 || dist_N[from] === UNREACHABLE) return undefined;
  const moves: Direction[] = [];
  let cell = from;
  while (cell !== goal) {
    const dir = DIRECTIONS.find((d) => {
      const next = neighbor(shape, cell, d);
      return next >= 0 && dist_N[next] === dist_N[cell]! - 1;
    })!;
    moves.push(dir);
    cell = neighbor(shape, cell, dir);
  }
  return moves;
}
