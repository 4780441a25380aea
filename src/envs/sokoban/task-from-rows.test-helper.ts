import assert from 'node:assert/strict';
import type { SokobanTask } from './generate-sokoban.js';
import { readSokoban } from './sokoban-scripted.js';
import { solveSokoban } from './solve-sokoban.js';

/** A hand-drawn task in the prompt's characters (`X` marks are recomputed, not read). */
export function taskFromRows(rows: string[]): SokobanTask {
  const view = readSokoban(rows.join('\n'));
  assert.ok(view !== undefined, 'bad test board');
  const solution = solveSokoban({ room: view.room, state: view.state });
  return {
    id: 'sokoban/hand/0',
    room: view.room,
    start: view.state,
    optimal: solution.status === 'solved' ? solution.moves.length : -1,
  };
}
