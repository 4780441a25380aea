/**
 * The fixed part of a Sokoban task: walls, goals, and what follows from them (dead squares,
 * box-to-goal distances). Immutable; every env and clone of a task shares one room.
 */
import { bfsDistances } from '../grid/bfs-distances.js';
import { DIRECTIONS } from '../grid/direction.js';
import { cellCount, neighbor, type GridShape } from '../grid/grid-shape.js';

export interface SokobanRoom {
  readonly shape: GridShape;
  /** 1 where a wall is, per cell. The outer ring is always wall. */
  readonly walls: Uint8Array;
  /** 1 where a goal is, per cell. */
  readonly goals: Uint8Array;
  readonly goalCells: readonly number[];
  /**
   * 1 on floor cells from which a box can never reach any goal, even with no other box in the
   * way (corners, walls without goals along them). A box pushed there is a certain deadlock.
   */
  readonly dead: Uint8Array;
  /** Walking distance from each floor cell to the nearest goal: the box shaping potential. */
  readonly goalDist: Int32Array;
}

export function makeSokobanRoom(shape: GridShape, walls: Uint8Array, goalCells: readonly number[]): SokobanRoom {
  const goals = new Uint8Array(cellCount(shape));
  for (const cell of goalCells) goals[cell] = 1;
  const floor = (cell: number) => cell >= 0 && walls[cell] === 0;
  const goalDist = bfsDistances({ shape, passable: floor, sources: goalCells });
  return { shape, walls, goals, goalCells: [...goalCells], dead: deadSquares(shape, floor, goalCells), goalDist };
}

/**
 * Cells a box can reach a goal from are those a box can be *pulled* to from a goal: pulling a
 * box from b one step in direction e needs floor at b+e (where the player stands) and at b+2e
 * (where the player steps back to). Floor cells outside that set are dead.
 */
function deadSquares(shape: GridShape, floor: (cell: number) => boolean, goalCells: readonly number[]): Uint8Array {
  const live = new Uint8Array(cellCount(shape));
  const stack = [...goalCells];
  for (const goal of goalCells) live[goal] = 1;
  while (stack.length > 0) {
    const box = stack.pop()!;
    for (const dir of DIRECTIONS) {
      const stand = neighbor(shape, box, dir);
      if (!floor(stand) || live[stand] === 1) continue;
      if (!floor(neighbor(shape, stand, dir))) continue;
      live[stand] = 1;
      stack.push(stand);
    }
  }
  const dead = new Uint8Array(cellCount(shape));
  for (let cell = 0; cell < dead.length; cell++) dead[cell] = floor(cell) && live[cell] === 0 ? 1 : 0;
  return dead;
}
