/**
 * Seeded Sokoban instances that are solvable by construction: a walled room with a few random
 * interior walls (the floor stays connected), random goals, then a reverse search from the
 * solved position (reverse-search.ts); the start is a uniformly drawn reachable state with no
 * box on a goal. Tests re-check every instance with the forward solver.
 */
import { TroupeError } from '../../util/errors.js';
import type { Rng } from '../../util/rng.js';
import { bfsDistances } from '../grid/bfs-distances.js';
import { cellAt, cellCount, type GridShape } from '../grid/grid-shape.js';
import { boxesOnGoals, type SokobanState } from './sokoban-move.js';
import { makeSokobanRoom, type SokobanRoom } from './sokoban-room.js';
import { reverseSearch } from './reverse-search.js';

/** Rooms tried before the options are declared impossible. */
export const SOKOBAN_MAX_ATTEMPTS = 100;
/** Reverse-search budget per room: covers 6x6 rooms with up to 3 boxes completely. */
export const SOKOBAN_REVERSE_MAX_STATES = 50_000;

/** One Sokoban instance. Immutable: every env of the task shares it. */
export interface SokobanTask {
  readonly id: string;
  readonly room: SokobanRoom;
  readonly start: SokobanState;
  /** Fewest moves that solve it. */
  readonly optimal: number;
}

export function generateSokoban(options: {
  id: string;
  /** Side of the square room, outer wall included. */
  size: number;
  boxes: number;
  /** Share of the interior cells turned into walls. */
  wallFraction: number;
  rng: Rng;
}): SokobanTask {
  const { id, size, boxes, wallFraction, rng } = options;
  const shape: GridShape = { height: size, width: size };
  const interior: number[] = [];
  for (let r = 1; r < size - 1; r++) for (let c = 1; c < size - 1; c++) interior.push(cellAt(shape, r, c));
  const wallCount = Math.round(wallFraction * interior.length);
  for (let attempt = 0; attempt < SOKOBAN_MAX_ATTEMPTS; attempt++) {
    const walls = new Uint8Array(cellCount(shape)).fill(1);
    const order = rng.shuffle([...interior]);
    const floor = order.slice(wallCount).sort((a, b) => a - b);
    for (const cell of floor) walls[cell] = 0;
    // Need room for the boxes, the player, and one free cell to manoeuvre.
    if (floor.length < boxes + 2 || !connected(shape, walls, floor)) continue;
    const goals = rng.shuffle([...floor]).slice(0, boxes).sort((a, b) => a - b);
    const room = makeSokobanRoom(shape, walls, goals);
    const starts = reverseSearch(room, SOKOBAN_REVERSE_MAX_STATES).filter((s) => boxesOnGoals(room, s.state) === 0);
    if (starts.length === 0) continue;
    const start = rng.pick(starts);
    return { id, room, start: start.state, optimal: start.depth };
  }
  throw new TroupeError(
    'config',
    `sokoban: found no ${size}x${size} room with ${boxes} box(es) and wall_fraction ${wallFraction} that can start with every box off its goal (tried ${SOKOBAN_MAX_ATTEMPTS} rooms); use fewer boxes, a lower wall_fraction or a larger size`,
  );
}

function connected(shape: GridShape, walls: Uint8Array, floor: readonly number[]): boolean {
  const dist_N = bfsDistances({ shape, passable: (cell) => walls[cell] === 0, sources: [floor[0]!] });
  return floor.every((cell) => dist_N[cell]! >= 0);
}
