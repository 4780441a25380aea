/**
 * Sokoban: push every box onto a goal (SEEDS.md section 1).
 *
 *   tasks: [{ name: sokoban, size: 6, boxes: 1 }]
 *
 * Team variant: `tool` proposes a move list (simulated on a copy), `plan` commits one; single
 * variant: `agent` commits. Five turns by default (one more than Plan-Path): Sokoban plans are
 * longer and a wrong push usually costs a detour, and 5 x 20 moves covers every default
 * instance's optimum with room to spare.
 */
import { deriveSeed, Rng } from '../../util/rng.js';
import { withMoveHistory } from '../grid/last-move.js';
import { MOVE_TEAM_ROLES, createMoveTeam } from '../grid/move-team.js';
import type { TaskDefinition } from '../types.js';
import { generateSokoban } from './generate-sokoban.js';
import { sokobanOptionsSchema, type SokobanOptions } from './sokoban-options.js';
import { SokobanEnv, sokobanGlobalReward } from './sokoban-env.js';
import { sokobanPresenterWith } from './sokoban-presenter.js';
import { sokobanScripted } from './sokoban-scripted.js';

export const SOKOBAN_DEFAULT_MAX_TURNS = 5;

export const sokobanTask: TaskDefinition<SokobanEnv, SokobanOptions> = {
  name: 'sokoban',
  description: 'Push every box onto a goal in a small walled room (U/D/L/R moves); +10 for solving.',
  optionsSchema: sokobanOptionsSchema,
  defaultMaxTurns: SOKOBAN_DEFAULT_MAX_TURNS,
  teamRoles: MOVE_TEAM_ROLES,
  createSource(options, seed) {
    return {
      make(index, split) {
        const task = generateSokoban({
          id: `sokoban/${split}/${index}`,
          size: options.size,
          boxes: options.boxes,
          wallFraction: options.wall_fraction,
          // Train and eval draw from disjoint labelled streams of the run seed.
          rng: new Rng(deriveSeed(seed, 'sokoban', split, index)),
        });
        return new SokobanEnv(task, options.unparseable_reward, options.solve_shaping, options.blocked_reward);
      },
    };
  },
  createTeam(options, team) {
    return createMoveTeam({
      name: 'sokoban',
      team,
      maxMoves: options.max_moves,
      presenter: withMoveHistory(sokobanPresenterWith(options.hint), options.history),
      globalReward: sokobanGlobalReward,
    });
  },
  scripted: sokobanScripted,
};

export { SokobanEnv, SOKOBAN_REWARDS, sokobanGlobalReward, type SokobanReport } from './sokoban-env.js';
export { generateSokoban, type SokobanTask } from './generate-sokoban.js';
export { solveSokoban, type SokobanSolution } from './solve-sokoban.js';
export { makeSokobanRoom, type SokobanRoom } from './sokoban-room.js';
export { sokobanMove, type SokobanState } from './sokoban-move.js';
export { sokobanOptionsSchema, type SokobanOptions } from './sokoban-options.js';
