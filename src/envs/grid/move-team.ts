import { TroupeError } from '../../util/errors.js';
import type { Team, TeamOptions } from '../types.js';
import { createMoveRole } from './move-roles.js';
import type { MoveEnv, MovePresenter, MoveReport } from './types.js';

/** Role names of the `team` variant, in turn order. */
export const MOVE_TEAM_ROLES = ['tool', 'plan'] as const;

/**
 * Assembles a grid task's Team: `tool` then `plan` (variant `team`) or one `agent` (variant
 * `single`). The natural-format tool writes a program, which needs the code sandbox; until it
 * exists that combination is a config error rather than a silently different task.
 */
export function createMoveTeam<E extends MoveEnv<R>, R extends MoveReport>(options: {
  name: string;
  team: TeamOptions;
  maxMoves: number;
  presenter: MovePresenter<E, R>;
  globalReward: (env: E) => number;
}): Team<E> {
  const { name, team, maxMoves, presenter, globalReward } = options;
  if (team.variant === 'team' && team.format === 'natural') {
    throw new TroupeError(
      'config',
      `task ${name}: format natural for the tool role needs the code sandbox (not built yet); use team.format: compact or team.variant: single`,
    );
  }
  const names = team.variant === 'team' ? MOVE_TEAM_ROLES : (['agent'] as const);
  return {
    name: `${name}/${team.variant}`,
    roles: names.map((role) => createMoveRole<E, R>({ name: role, format: team.format, maxMoves, presenter })),
    order: team.order,
    maxTurns: team.maxTurns,
    alpha: team.alpha,
    globalReward,
  };
}
