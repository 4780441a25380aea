// Hand-drawn Plan-Path tasks for tests: `P` start, `G` goal, `#` wall, `.` free.
import { bfsDistances } from '../grid/bfs-distances.js';
import { cellAt } from '../grid/grid-shape.js';
import type { PlanPathTask } from './index.js';

export function taskFromRows(rows: string[]): PlanPathTask {
  const shape = { height: rows.length, width: rows[0]!.length };
  const walls = new Uint8Array(shape.height * shape.width);
  let start = -1;
  let goal = -1;
  rows.forEach((row, r) =>
    [...row].forEach((ch, c) => {
      const cell = cellAt(shape, r, c);
      if (ch === '#') walls[cell] = 1;
      if (ch === 'P') start = cell;
      if (ch === 'G') goal = cell;
    }),
  );
  const distToGoal = bfsDistances({ shape, passable: (cell) => walls[cell] === 0, sources: [goal] });
  return { id: 'plan-path/hand/0', shape, walls, start, goal, distToGoal, optimal: distToGoal[start]! };
}
