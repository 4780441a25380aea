/**
 * How Sokoban looks in prompts. Board characters (both formats):
 *   `#` wall   `.` floor   `X` dead floor (a box pushed there is stuck for good)
 *   `G` goal   `B` box   `*` box on a goal   `P` player   `+` player on a goal
 * The `X` marks are the deadlock hints; the status shows the boxes on goals (`ON0/1`).
 * All characters are in the small models' standard character vocabulary (no lower case).
 */
import { cellAt, colOf, rowOf } from '../grid/grid-shape.js';
import type { MovePresenter, PromptFormat } from '../grid/types.js';
import { formatReward } from '../grid/format-reward.js';
import { boxesOnGoals } from './sokoban-move.js';
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

  rules() {
    return [
      'Puzzle: Sokoban. Push every box onto a goal.',
      'Legend: # wall, . floor, X floor where a box gets stuck for good (never push a box there), G goal, B box, * box on a goal, P you, + you on a goal.',
      'You walk one cell per move. Walking into a box pushes it one cell if the cell behind it is floor; you cannot pull boxes or push two at once.',
      `Each move costs ${-SOKOBAN_REWARDS.step}; a blocked move costs ${-SOKOBAN_REWARDS.invalid}. A box pushed onto a goal gives +${SOKOBAN_REWARDS.boxOnGoal}, off a goal ${SOKOBAN_REWARDS.boxOffGoal}; solving gives +${SOKOBAN_REWARDS.solved}. A box stuck on an X cell ends the game as a failure.`,
    ];
  },
};
