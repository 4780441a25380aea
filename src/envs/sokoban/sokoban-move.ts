/**
 * Sokoban's rules as a pure function over an immutable state, shared by the env, the solver,
 * the generator's reverse search and the scripted player.
 */
import { neighbor } from '../grid/grid-shape.js';
import type { Direction } from '../grid/types.js';
import type { SokobanRoom } from './sokoban-room.js';

/** Where the player and the boxes are. `boxes` is sorted, so equal states look equal. */
export interface SokobanState {
  readonly player: number;
  readonly boxes: readonly number[];
}

/** The state after a legal move and the cell a box was pushed from (-1: a plain walk). */
export interface SokobanMoveResult {
  readonly state: SokobanState;
  readonly pushedFrom: number;
  readonly pushedTo: number;
}

/** Applies one move; undefined when it is illegal (into a wall, or a push into wall or box). */
export function sokobanMove(room: SokobanRoom, state: SokobanState, dir: Direction): SokobanMoveResult | undefined {
  const next = neighbor(room.shape, state.player, dir);
  if (next < 0 || room.walls[next] === 1) return undefined;
  if (!state.boxes.includes(next)) return { state: { player: next, boxes: state.boxes }, pushedFrom: -1, pushedTo: -1 };
  const beyond = neighbor(room.shape, next, dir);
  if (beyond < 0 || room.walls[beyond] === 1 || state.boxes.includes(beyond)) return undefined;
  const boxes = state.boxes.map((box) => (box === next ? beyond : box)).sort((a, b) => a - b);
  return { state: { player: next, boxes }, pushedFrom: next, pushedTo: beyond };
}

export function boxesOnGoals(room: SokobanRoom, state: SokobanState): number {
  return state.boxes.filter((box) => room.goals[box] === 1).length;
}

export function isSolved(room: SokobanRoom, state: SokobanState): boolean {
  return state.boxes.every((box) => room.goals[box] === 1);
}

/** A box stands on a dead square that is not a goal: the puzzle can no longer be solved. */
export function deadBox(room: SokobanRoom, state: SokobanState): number | undefined {
  return state.boxes.find((box) => room.dead[box] === 1 && room.goals[box] === 0);
}

/**
 * A number unique to a state: player + N * sum(box_i * N^i) over sorted boxes, N = cell count.
 * Exact while N^(boxes+1) < 2^53, which the options' limits guarantee (checked by callers).
 */
export function stateKey(cells: number, state: SokobanState): number {
  let key = 0;
  for (let i = state.boxes.length - 1; i >= 0; i--) key = key * cells + state.boxes[i]!;
  return key * cells + state.player;
}
