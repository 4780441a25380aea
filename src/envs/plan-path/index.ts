/**
 * Plan-Path: walk from a start to a goal on a grid with walls (SEEDS.md section 1).
 *
 *   tasks: [{ name: plan-path, size: 10, wall_fraction: 0.22 }]
 *
 * Team variant: `tool` proposes a move list (simulated on a copy), `plan` commits one; single
 * variant: `agent` commits. Four turns by default: with 20 moves per answer that is 80 moves,
 * far more than any 10x10 optimum needs, while leaving room for a wrong first turn.
 */
import { deriveSeed, Rng } from '../../util/rng.js';
import { withMoveHistory } from '../grid/last-move.js';
import { MOVE_TEAM_ROLES, createMoveTeam } from '../grid/move-team.js';
import type { TaskDefinition } from '../types.js';
import { generatePlanPath } from './generate-plan-path.js';
import { planPathOptionsSchema, planPathShape, type PlanPathOptions } from './plan-path-options.js';
import { PlanPathEnv, planPathGlobalReward } from './plan-path-env.js';
import { planPathPresenterWith } from './plan-path-presenter.js';
import { planPathScripted } from './plan-path-scripted.js';

export const PLAN_PATH_DEFAULT_MAX_TURNS = 4;

export const planPathTask: TaskDefinition<PlanPathEnv, PlanPathOptions> = {
  name: 'plan-path',
  description: 'Walk from P to G on a grid with walls (U/D/L/R moves); +1 at the goal, +0.5 for a shortest path.',
  optionsSchema: planPathOptionsSchema,
  defaultMaxTurns: PLAN_PATH_DEFAULT_MAX_TURNS,
  teamRoles: MOVE_TEAM_ROLES,
  createSource(options, seed) {
    const shape = planPathShape(options);
    return {
      make(index, split) {
        const task = generatePlanPath({
          id: `plan-path/${split}/${index}`,
          shape,
          wallFraction: options.wall_fraction,
          minDistance: options.min_distance,
          // Train and eval draw from disjoint labelled streams of the run seed.
          rng: new Rng(deriveSeed(seed, 'plan-path', split, index)),
        });
        return new PlanPathEnv(task, options.unparseable_reward, options.wall_reward);
      },
    };
  },
  createTeam(options, team) {
    return createMoveTeam({
      name: 'plan-path',
      team,
      maxMoves: options.max_moves,
      presenter: withMoveHistory(planPathPresenterWith(options.hint), options.history),
      globalReward: planPathGlobalReward,
    });
  },
  scripted: planPathScripted,
};

export { PlanPathEnv, PLAN_PATH_REWARDS, planPathGlobalReward, type PlanPathReport } from './plan-path-env.js';
export { generatePlanPath, type PlanPathTask } from './generate-plan-path.js';
export { solvePlanPath } from './solve-plan-path.js';
export { planPathOptionsSchema, type PlanPathOptions } from './plan-path-options.js';
