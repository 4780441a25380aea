/**
 * How Sokoban looks in prompts. Board characters (both formats):
 *   `#` wall   `.` floor   `X` dead floor (a box pushed there is stuck for good)
 *   `G` goal   `B` box   `*` box on a goal   `P` player   `+` player on a goal
 * The `X` marks are the deadlock hints; the status shows the boxes on goals (`ON0/1`).
 * All characters are in the small models' standard character vocabulary (no lower case).
 */
import { DIRECTIONS } from '../grid/direction.js';
import { cellAt, colOf, rowOf, type GridShape } from '../grid/grid-shape.js';
import type { MovePresenter, PromptFormat } from '../grid/types.js';
import { formatReward } from '../grid/format-reward.js';
import { boxesOnGoals, sokobanMove } from './sokoban-move.js';
import type { SokobanHint } from './sokoban-options.js';
import { solveSokoban } from './solve-sokoban.js';
import { SOKOBAN_REWARDS, type SokobanEnv, type SokobanReport } from './sokoban-env.js';

export const SOKOBAN_CELLS = {
  wall: '#',
  floor: '.',
  dead: 'X',
  goal: 'G',
  box: 'B',
  boxOnGoal: '*',
  player: 'P',
  playerOnGoal: '+',
} as const;
export const SOKOBAN_ALPHABET = Object.values(SOKOBAN_CELLS).join('');

export const sokobanPresenter: MovePresenter<SokobanEnv, SokobanReport> = {
  board(env) {
    const { room } = env.task;
    const { player, boxes } = env.state;
    const rows: string[] = [];
    for (let r = 0; r < room.shape.height; r++) {
      let row = '';
      for (let c = 0; c < room.shape.width; c++) {
        const cell = cellAt(room.shape, r, c);
        const goal = room.goals[cell] === 1;
        if (room.walls[cell] === 1) row += SOKOBAN_CELLS.wall;
        else if (cell === player) row += goal ? SOKOBAN_CELLS.playerOnGoal : SOKOBAN_CELLS.player;
        else if (boxes.includes(cell)) row += goal ? SOKOBAN_CELLS.boxOnGoal : SOKOBAN_CELLS.box;
        else if (goal) row += SOKOBAN_CELLS.goal;
        else row += room.dead[cell] === 1 ? SOKOBAN_CELLS.dead : SOKOBAN_CELLS.floor;
      }
      rows.push(row);
    }
    return rows;
  },

  status(env, format: PromptFormat) {
    const on = boxesOnGoals(env.task.room, env.state);
    const total = env.state.boxes.length;
    return format === 'compact' ? `ON${on}/${total}` : `Boxes on goals: ${on} of ${total}.`;
  },

  describe(report, format: PromptFormat) {
    if (format === 'compact') {
      const end = report.solved ? ' SOLVED' : report.deadlock ? ' DEAD' : '';
      return `PUSH${report.pushes} HIT${report.invalid} ON${report.onGoals}/${report.boxes}${end} R=${formatReward(report.reward)}`;
    }
    const end = report.solved ? ' The puzzle is solved.' : report.deadlock ? ' A box is stuck: the puzzle can no longer be solved.' : '';
    return `pushes a box ${report.pushes} times; ${report.invalid} moves are blocked; ${report.onGoals} of ${report.boxes} boxes end on goals; reward ${formatReward(report.reward)}.${end}`;
  },

  landmarks(env) {
    const { shape, goalCells } = env.task.room;
    const at = (cell: number) => `(${rowOf(shape, cell) + 1}, ${colOf(shape, cell) + 1})`;
    const list = (cells: readonly number[]) => [...cells].sort((a, b) => a - b).map(at).join(', ');
    return `As (row, column): you are at ${at(env.state.player)}; boxes at ${list(env.state.boxes)}; goals at ${list(goalCells)}.`;
  },

  rules(env) {
    return [
      'Puzzle: Sokoban. Push every box onto a goal.',
      'Legend: # wall, . floor, X floor where a box gets stuck for good (never push a box there), G goal, B box, * box on a goal, P you, + you on a goal.',
      'You walk one cell per move. Walking into a box pushes it one cell if the cell behind it is floor; you cannot pull boxes or push two at once.',
      `Each move costs ${-SOKOBAN_REWARDS.step}; a blocked move costs ${-env.blockedPenalty}. A box pushed onto a goal gives +${SOKOBAN_REWARDS.boxOnGoal}, off a goal ${SOKOBAN_REWARDS.boxOffGoal}; solving gives +${SOKOBAN_REWARDS.solved}. A box stuck on an X cell ends the game as a failure.`,
    ];
  },
};

/**
 * The compact header facts of a `hint` (sokoban-options.ts). `BOX D1 R2`: the box lies 1 row
 * down and 2 columns right of the player; `GOAL U1`: the goal lies 1 row up from the box;
 * `OPEN UDL`: the moves that are not blocked (a blocked move walks into a wall or pushes a box
 * into a wall or another box). With several boxes the header names the box off a goal nearest
 * to the player and the free goal nearest to that box (distances by rows plus columns, ties
 * to the lower cell); once no box is off a goal, only `OPEN` is left.
 */
export function sokobanHint(env: SokobanEnv, hint: SokobanHint): string {
  if (hint === 'none') return '';
  const { room } = env.task;
  const { player, boxes } = env.state;
  const parts: string[] = [];
  if (hint === 'push-open') {
    parts.push(...nextPush(env));
    parts.push('OPEN', DIRECTIONS.filter((dir) => sokobanMove(room, env.state, dir) !== undefined).join(''));
    return parts.join(' ');
  }
  const box = nearest(room.shape, player, boxes.filter((cell) => room.goals[cell] === 0));
  if (box !== undefined) {
    const goal = nearest(room.shape, box, room.goalCells.filter((cell) => !boxes.includes(cell)));
    parts.push('BOX', ...offset(room.shape, player, box));
    if (goal !== undefined) parts.push('GOAL', ...offset(room.shape, box, goal));
  }
  if (hint === 'box-goal-open') {
    const open = DIRECTIONS.filter((dir) => sokobanMove(room, env.state, dir) !== undefined);
    parts.push('OPEN', open.join(''));
  }
  return parts.join(' ');
}

/** The presenter with a compact-header hint in place of the `ON` status (natural is unchanged). */
export function sokobanPresenterWith(hint: SokobanHint): MovePresenter<SokobanEnv, SokobanReport> {
  if (hint === 'none') return sokobanPresenter;
  return { ...sokobanPresenter, status: (env, format) => (format === 'compact' ? sokobanHint(env, hint) : sokobanPresenter.status(env, format)) };
}

/**
 * `PUSH L FROM U1 R2`: the first push of an optimal solution from the current state and the
 * offset from the player to the cell it is made from (`HERE` when the player stands there);
 * nothing when the state is solved or cannot be solved.
 */
function nextPush(env: SokobanEnv): string[] {
  const { room } = env.task;
  const solution = solveSokoban({ room, state: env.state });
  if (solution.status !== 'solved') return [];
  let state = env.state;
  for (const dir of solution.moves) {
    const moved = sokobanMove(room, state, dir);
    if (moved === undefined) return [];
    if (moved.pushedFrom >= 0) {
      const from = offset(room.shape, env.state.player, state.player);
      return ['PUSH', dir, ...(from.length === 0 ? ['HERE'] : ['FROM', ...from])];
    }
    state = moved.state;
  }
  return [];
}

/** Rows then columns from `from` to `to`, e.g. `D1 R2`; zero components are left out. */
function offset(shape: GridShape, from: number, to: number): string[] {
  const rows = rowOf(shape, to) - rowOf(shape, from);
  const cols = colOf(shape, to) - colOf(shape, from);
  const parts: string[] = [];
  if (rows !== 0) parts.push(`${rows > 0 ? 'D' : 'U'}${Math.abs(rows)}`);
  if (cols !== 0) parts.push(`${cols > 0 ? 'R' : 'L'}${Math.abs(cols)}`);
  return parts;
}

function nearest(shape: GridShape, from: number, cells: readonly number[]): number | undefined {
  const distance = (cell: number) => Math.abs(rowOf(shape, cell) - rowOf(shape, from)) + Math.abs(colOf(shape, cell) - colOf(shape, from));
  let best: number | undefined;
  for (const cell of [...cells].sort((a, b) => a - b)) if (best === undefined || distance(cell) < distance(best)) best = cell;
  return best;
}
