/**
 * The roles of every grid task (see types.ts):
 * - `tool` proposes moves; they run on a clone, the result is recorded in the real env's
 *   history for `plan` to see; tool's local reward is what the proposal earns in simulation.
 * - `plan` sees the proposal and its result and commits moves to the env; local reward is
 *   what the committed moves earn.
 * - `agent` (single variant) commits moves directly.
 * An unparseable answer (or one over the move cap) costs the task's invalid-move penalty and
 * is recorded in the history and in StepOutcome.failure.
 */
import type { ParseResult, Role, StepOutcome, TurnContext } from '../types.js';
import { buildMovePrompt } from './move-prompt.js';
import { parseMoves } from './parse-moves.js';
import type { Direction, MoveEnv, MovePresenter, MoveReport, PromptFormat } from './types.js';

export type MoveRoleName = 'tool' | 'plan' | 'agent';

export interface MoveRoleOptions<E extends MoveEnv<R>, R extends MoveReport> {
  readonly name: MoveRoleName;
  readonly format: PromptFormat;
  /** Cap on the moves of one answer; longer answers are a failure. */
  readonly maxMoves: number;
  readonly presenter: MovePresenter<E, R>;
}

export function createMoveRole<E extends MoveEnv<R>, R extends MoveReport>(
  options: MoveRoleOptions<E, R>,
): Role<E, Direction[]> {
  const { name, format, maxMoves, presenter } = options;
  const simulates = name === 'tool';
  return {
    name,
    prompt(env: E, ctx: TurnContext): string {
      return buildMovePrompt({ role: name, env, ctx, format, maxMoves, presenter, showProposal: name === 'plan' });
    },
    parse(text: string): ParseResult<Direction[]> {
      return parseMoves(text, { format, maxMoves });
    },
    step(env: E, action: ParseResult<Direction[]>, ctx: TurnContext): StepOutcome {
      const kind = simulates ? 'proposal' : 'commit';
      if (!action.ok) {
        env.record({ turn: ctx.turn, role: name, kind, failure: action.reason });
        return { local: env.invalidPenalty, failure: `${name}: ${action.reason}`, info: { parsed: false } };
      }
      // The tool's moves never touch the real board: they play on a throwaway copy.
      const target = simulates ? env.clone() : env;
      const report = target.applyMoves(action.action);
      env.record({
        turn: ctx.turn,
        role: name,
        kind,
        moves: report.moves,
        report,
        ...(report.failure === undefined ? {} : { failure: report.failure }),
      });
      const outcome: StepOutcome = {
        local: report.reward,
        // Reports are plain JSON data (letters, counts, numbers), so they double as log info.
        info: { parsed: true, simulated: simulates, ...(report as unknown as Readonly<Record<string, unknown>>) },
      };
      return report.failure === undefined ? outcome : { ...outcome, failure: `${name}: ${report.failure}` };
    },
  };
}
