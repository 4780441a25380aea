import type { Role, Team, TeamOptions } from '../types.js';
import { createMoveRole } from './move-roles.js';
import { createProgramMoveRole } from './program-move-role.js';
import type { MoveEnv, MovePresenter, MoveReport } from './types.js';

/** Role names of the `team` variant, in turn order. */
export const MOVE_TEAM_ROLES = ['tool', 'plan'] as const;

/**
 * Assembles a grid task's Team: `tool` then `plan` (variant `team`) or one `agent` (variant
 * `single`). In the natural format the tool writes a Python program that prints its moves,
 * run in the code sandbox (a host that cannot sandbox fails on the first run with the
 * sandbox's own `sandbox` error); in the compact format it writes the moves themselves.
 * In parallel turn order the compact tool commits its move before plan's (a proposal nobody
 * can read in time would leave the tool's answer without effect on the team reward).
 */
export function createMoveTeam<E extends MoveEnv<R>, R extends MoveReport>(options: {
  name: string;
  team: TeamOptions;
  maxMoves: number;
  presenter: MovePresenter<E, R>;
  globalReward: (env: E) => number;
}): Team<E> {
  const { name, team, maxMoves, presenter, globalReward } = options;
  const format = team.format;
  const roles: Role<E, any>[] =
    team.variant === 'single'
      ? [createMoveRole<E, R>({ name: 'agent', format, maxMoves, presenter })]
      : [
          format === 'natural'
            ? createProgramMoveRole<E, R>({ maxMoves, presenter })
            : createMoveRole<E, R>({ name: 'tool', format, maxMoves, presenter, commits: team.order === 'parallel' }),
          createMoveRole<E, R>({ name: 'plan', format, maxMoves, presenter }),
        ];
  return {
    name: `${name}/${team.variant}`,
    roles,
    order: team.order,
    maxTurns: team.maxTurns,
    alpha: team.alpha,
    globalReward,
  };
}
