/**
 * How Plan-Path looks in prompts. Board characters (both formats):
 *   `#` wall   `.` free   `P` the agent   `G` the goal
 * A 10x10 compact prompt is about 125 characters (tool) and 180 (plan, with the proposal).
 */
import { DIRECTIONS } from '../grid/direction.js';
import { cellAt, colOf, neighbor, rowOf } from '../grid/grid-shape.js';
import { formatReward } from '../grid/format-reward.js';
import type { MovePresenter, PromptFormat } from '../grid/types.js';
import { PLAN_PATH_REWARDS, type PlanPathEnv, type PlanPathReport } from './plan-path-env.js';
import type { PlanPathHint } from './plan-path-options.js';

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

  rules(env) {
    return [
      'Puzzle: move P to G on the grid below.',
      'Legend: # wall, . free cell, P you, G goal.',
      `Each move costs ${-PLAN_PATH_REWARDS.step}; a move into a wall or off the grid fails (${env.wallPenalty}) and you stay put. Reaching G gives +${PLAN_PATH_REWARDS.goal}, and +${PLAN_PATH_REWARDS.optimalBonus} more if your whole path is as short as possible.`,
    ];
  },
};

/**
 * The compact header facts of a `hint` (plan-path-options.ts): `GOAL D1 R2` says G is 1 row
 * down and 2 columns right of P (`GOAL` alone when P stands on G); `OPEN UDL` lists the moves
 * from P that stay on a free cell.
 */
export function planPathHint(env: PlanPathEnv, hint: PlanPathHint): string {
  if (hint === 'none') return '';
  const { shape, walls, goal } = env.task;
  const rows = rowOf(shape, goal) - rowOf(shape, env.pos);
  const cols = colOf(shape, goal) - colOf(shape, env.pos);
  const parts = ['GOAL'];
  if (rows !== 0) parts.push(`${rows > 0 ? 'D' : 'U'}${Math.abs(rows)}`);
  if (cols !== 0) parts.push(`${cols > 0 ? 'R' : 'L'}${Math.abs(cols)}`);
  if (hint === 'goal-open') {
    const open = DIRECTIONS.filter((dir) => {
      const next = neighbor(shape, env.pos, dir);
      return next >= 0 && walls[next] === 0;
    });
    parts.push('OPEN', open.join(''));
  }
  return parts.join(' ');
}

/** The presenter with a compact-header hint (the natural format is unchanged). */
export function planPathPresenterWith(hint: PlanPathHint): MovePresenter<PlanPathEnv, PlanPathReport> {
  if (hint === 'none') return planPathPresenter;
  return { ...planPathPresenter, status: (env, format) => (format === 'compact' ? planPathHint(env, hint) : planPathPresenter.status(env, format)) };
}
