/**
 * Optimal Sokoban solver: breadth-first search over (player, boxes) states, so the plan has
 * the fewest moves (walks and pushes both count, as in the rewards). Pushes onto dead squares
 * are pruned: they can never lead to a solution.
 */
import { invariant } from '../../util/errors.js';
import { DIRECTIONS } from '../grid/direction.js';
import { cellCount } from '../grid/grid-shape.js';
import type { Direction } from '../grid/types.js';
import { deadBox, isSolved, sokobanMove, stateKey, type SokobanState } from './sokoban-move.js';
import type { SokobanRoom } from './sokoban-room.js';

/** Default search budget: far above what 6x6 rooms with a few boxes need (hundreds). */
export const SOKOBAN_SOLVER_MAX_STATES = 200_000;

export type SokobanSolution =
  | { readonly status: 'solved'; readonly moves: Direction[] }
  | { readonly status: 'unsolvable' }
  /** The search budget ran out before an answer: solvability unknown. */
  | { readonly status: 'state-limit' };

export function solveSokoban(options: {
  room: SokobanRoom;
  state: SokobanState;
  maxStates?: number;
}): SokobanSolution {
  const { room, state } = options;
  const maxStates = options.maxStates ?? SOKOBAN_SOLVER_MAX_STATES;
  const cells = cellCount(room.shape);
  invariant(Math.pow(cells, state.boxes.length + 1) < Number.MAX_SAFE_INTEGER, 'sokoban state keys must be exact');
  if (isSolved(room, state)) return { status: 'solved', moves: [] };
  if (deadBox(room, state) !== undefined) return { status: 'unsolvable' };
  const states: SokobanState[] = [state];
  const parent: number[] = [-1];
  const via: Direction[] = ['U'];
  const seen = new Set<number>([stateKey(cells, state)]);
  for (let head = 0; head < states.length; head++) {
    for (const dir of DIRECTIONS) {
      const moved = sokobanMove(room, states[head]!, dir);
      if (moved === undefined) continue;
      if (moved.pushedTo >= 0 && room.dead[moved.pushedTo] === 1 && room.goals[moved.pushedTo] === 0) continue;
      const key = stateKey(cells, moved.state);
      if (seen.has(key)) continue;
      seen.add(key);
      states.push(moved.state);
      parent.push(head);
      via.push(dir);
      if (isSolved(room, moved.state)) return { status: 'solved', moves: tracePath(parent, via, states.length - 1) };
      if (states.length >= maxStates) return { status: 'state-limit' };
    }
  }
  return { status: 'unsolvable' };
}

function tracePath(parent: readonly number[], via: readonly Direction[], last: number): Direction[] {
  const moves: Direction[] = [];
  for (let node = last; parent[node]! >= 0; node = parent[node]!) moves.push(via[node]!);
  return moves.reverse();
}
