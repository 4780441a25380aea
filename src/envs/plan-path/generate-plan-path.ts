/**
 * Seeded Plan-Path instances: walls on a random `wall_fraction` share of the cells, a random
 * start, and a goal drawn among the cells reachable from the start at least `min_distance`
 * moves away. Reachability comes from the same BFS the solver uses, so every instance is
 * solvable by construction; tests re-check it with the solver.
 */
import { TroupeError } from '../../util/errors.js';
import type { Rng } from '../../util/rng.js';
import { bfsDistances } from '../grid/bfs-distances.js';
import { cellCount, type GridShape } from '../grid/grid-shape.js';

/** Fresh wall layouts tried before the options are declared impossible. */
export const PLAN_PATH_MAX_ATTEMPTS = 200;

/** One Plan-Path instance. Immutable: every env of the task shares it. */
export interface PlanPathTask {
  readonly id: string;
  readonly shape: GridShape;
  /** 1 where a wall is, per cell. */
  readonly walls: Uint8Array;
  readonly start: number;
  readonly goal: number;
  /** BFS moves from each cell to the goal (-1 where unreachable): the shaping potential. */
  readonly distToGoal: Int32Array;
  /** Length of a shortest start-to-goal path. */
  readonly optimal: number;
}

export function generatePlanPath(options: {
  id: string;
  shape: GridShape;
  wallFraction: number;
  minDistance: number;
  rng: Rng;
}): PlanPathTask {
  const { id, shape, wallFraction, minDistance, rng } = options;
  const total = cellCount(shape);
  const wallCount = Math.round(wallFraction * total);
  for (let attempt = 0; attempt < PLAN_PATH_MAX_ATTEMPTS; attempt++) {
    const order = rng.shuffle(Array.from({ length: total }, (_, cell) => cell));
    const walls = new Uint8Array(total);
    for (const cell of order.slice(0, wallCount)) walls[cell] = 1;
    const free = order.slice(wallCount);
    if (free.length < 2) continue;
    const start = rng.pick(free);
    const fromStart = bfsDistances({ shape, passable: (cell) => walls[cell] === 0, sources: [start] });
    const goals = free.filter((cell) => fromStart[cell]! >= minDistance).sort((a, b) => a - b);
    if (goals.length === 0) continue;
    const goal = rng.pick(goals);
    const distToGoal = bfsDistances({ shape, passable: (cell) => walls[cell] === 0, sources: [goal] });
    return { id, shape, walls, start, goal, distToGoal, optimal: distToGoal[start]! };
  }
  throw new TroupeError(
    'config',
    `plan-path: no ${shape.height}x${shape.width} grid with wall_fraction ${wallFraction} has a start and goal ${minDistance}+ moves apart (tried ${PLAN_PATH_MAX_ATTEMPTS} layouts); lower min_distance or wall_fraction, or enlarge the grid`,
  );
}
