/**
 * Every state from which a room can be solved, found backwards: start from all solved states
 * (boxes on the goals, player on any free floor cell) and apply reverse moves. The reverse of
 * a walk is a walk back; the reverse of a push is a *pull* (the player steps away from a box
 * and drags it along). Because each reverse move undoes a legal forward move, every state
 * found is solvable, and its BFS depth is exactly its optimal number of moves.
 */
import { DIRECTIONS, OPPOSITE_DIRECTION } from '../grid/direction.js';
import { cellCount, neighbor } from '../grid/grid-shape.js';
import { stateKey, type SokobanState } from './sokoban-move.js';
import type { SokobanRoom } from './sokoban-room.js';

export interface ReachedState {
  readonly state: SokobanState;
  /** Optimal number of forward moves to solve it. */
  readonly depth: number;
}

/** All (up to `maxStates`) solvable states of the room, in order of increasing depth. */
export function reverseSearch(room: SokobanRoom, maxStates: number): ReachedState[] {
  const cells = cellCount(room.shape);
  const boxes = [...room.goalCells].sort((a, b) => a - b);
  const reached: ReachedState[] = [];
  const seen = new Set<number>();
  for (let cell = 0; cell < cells; cell++) {
    if (room.walls[cell] === 1 || room.goals[cell] === 1) continue;
    const state = { player: cell, boxes };
    seen.add(stateKey(cells, state));
    reached.push({ state, depth: 0 });
  }
  for (let head = 0; head < reached.length && reached.length < maxStates; head++) {
    const { state, depth } = reached[head]!;
    for (const dir of DIRECTIONS) {
      const to = neighbor(room.shape, state.player, dir);
      if (to < 0 || room.walls[to] === 1 || state.boxes.includes(to)) continue;
      const options: SokobanState[] = [{ player: to, boxes: state.boxes }];
      const behind = neighbor(room.shape, state.player, OPPOSITE_DIRECTION[dir]);
      if (behind >= 0 && state.boxes.includes(behind)) {
        const pulled = state.boxes.map((box) => (box === behind ? state.player : box)).sort((a, b) => a - b);
        options.push({ player: to, boxes: pulled });
      }
      for (const next of options) {
        const key = stateKey(cells, next);
        if (seen.has(key)) continue;
        seen.add(key);
        reached.push({ state: next, depth: depth + 1 });
      }
    }
  }
  return reached;
}
