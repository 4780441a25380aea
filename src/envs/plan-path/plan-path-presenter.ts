/**
 * How Plan-Path looks in prompts. Board characters (both formats):
 *   `#` wall   `.` free   `P` the agent   `G` the goal
 * A 10x10 compact prompt is about 125 characters (tool) and 180 (plan, with the proposal).
 */
import { cellAt, colOf, rowOf } from '../grid/grid-shape.js';
import { formatReward } from '../grid/format-reward.js';
import type { MovePresenter, PromptFormat } from '../grid/types.js';
import { PLAN_PATH_REWARDS, type PlanPathEnv, type PlanPathReport } from './plan-path-env.js';

export const PLAN_PATH_CELLS = { wall: '#', free: '.', agent: 'P', goal: 'G' } as const;
export const PLAN_PATH_ALPHABET = Object.values(PLAN_PATH_CELLS).join('');

export const planPathPresenter: MovePresenter<PlanPathEnv, PlanPathReport> = {
  board(env) {
    const { shape, walls, goal } = env.task;
    const rows: string[] = [];
    for (let r = 0; r < shape.height; r++) {
      let row = '';
      for (let c = 0; c < shape.width; c++) {
        const cell = cellAt(shape, r, c);
        if (cell === env.pos) row += PLAN_PATH_CELLS.agent;
        else if (cell === goal) row += PLAN_PATH_CELLS.goal;
        else row += walls[cell] === 1 ? PLAN_PATH_CELLS.wall : PLAN_PATH_CELLS.free;
      }
      rows.push(row);
    }
    return rows;
  },

  status(env, format: PromptFormat) {
    return format === 'compact' ? '' : `You have walked ${env.walked} steps so far.`;
  },

  describe(report, format: PromptFormat) {
    if (format === 'compact') {
      const where = report.solved ? (report.optimal ? 'GOAL OPT' : 'GOAL') : `END ${report.endRow + 1},${report.endCol + 1}`;
      return `${where} HIT${report.invalid} R=${formatReward(report.reward)}`;
    }
    const where = report.solved
      ? `reaches the goal${report.optimal ? ' by a shortest path' : ''}`
      : `ends at row ${report.endRow + 1}, column ${report.endCol + 1} without reaching the goal`;
    const hits = report.invalid === 1 ? '1 move hits' : `${report.invalid} moves hit`;
    return `${where}; ${hits} a wall or the edge; reward ${formatReward(report.reward)}.`;
  },

  landmarks(env) {
    const { shape, goal } = env.task;
    const at = (cell: number) => `row ${rowOf(shape, cell) + 1}, column ${colOf(shape, cell) + 1}`;
    return `P is at ${at(env.pos)}; G is at ${at(goal)}.`;
  },

  rules() {
    return [
      'Puzzle: move P to G on the grid below.',
      'Legend: # wall, . free cell, P you, G goal.',
      `Each move costs ${-PLAN_PATH_REWARDS.step}; a move into a wall or off the grid fails (${PLAN_PATH_REWARDS.invalid}) and you stay put. Reaching G gives +${PLAN_PATH_REWARDS.goal}, and +${PLAN_PATH_REWARDS.optimalBonus} more if your whole path is as short as possible.`,
    ];
  },
};
