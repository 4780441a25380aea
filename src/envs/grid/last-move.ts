/**
 * One move of memory for compact grid prompts (`history: last` on Plan-Path and Sokoban; Sudoku
 * shares the option and writes its own `LAST` line).
 * Without it a model that sees only the current board cannot tell where it came from and
 * walks back and forth between two cells. It is the game's own record, nothing from a solver.
 */
import { z } from 'zod';
import type { MoveEnv, MovePresenter, MoveReport } from './types.js';

export const MOVE_HISTORIES = ['none', 'last'] as const;
export type MoveHistory = (typeof MOVE_HISTORIES)[number];

/** The `history` task option: `last` ends the compact header with `LAST ...` (lastMoveText). */
export const moveHistoryOption = z
  .enum(MOVE_HISTORIES, { error: `history must be one of ${MOVE_HISTORIES.join(' | ')}` })
  .default('none');

/**
 * `LAST R` for the moves committed on the previous turn, `LAST RX` when one of them was
 * illegal (a wall, the edge, a blocked push), `LAST ?` when that answer was unusable, `LAST -`
 * before any commit. Tool proposals are never played, so they never show here.
 */
export function lastMoveText<R extends MoveReport>(env: MoveEnv<R>): string {
  for (let i = env.history.length - 1; i >= 0; i--) {
    const record = env.history[i];
    if (record === undefined || record.kind !== 'commit') continue;
    if (record.moves === undefined || record.report === undefined || record.moves.length === 0) return 'LAST ?';
    return `LAST ${record.moves}${record.report.invalid > 0 ? 'X' : ''}`;
  }
  return 'LAST -';
}

/** The presenter whose compact header ends with lastMoveText under `history: last`. */
export function withMoveHistory<E extends MoveEnv<R>, R extends MoveReport>(
  presenter: MovePresenter<E, R>,
  history: MoveHistory,
): MovePresenter<E, R> {
  if (history === 'none') return presenter;
  return {
    ...presenter,
    status(env, format) {
      const status = presenter.status(env, format);
      if (format !== 'compact') return status;
      return status === '' ? lastMoveText(env) : `${status} ${lastMoveText(env)}`;
    },
  };
}
