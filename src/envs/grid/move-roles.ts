/**
 * The roles of every grid task (see types.ts):
 * - `tool` proposes moves; they run on a clone, the result is recorded in the real env's
 *   history for `plan` to see; tool's local reward is what the proposal earns in simulation.
 * - `plan` sees the proposal and its result and commits moves to the env; local reward is
 *   what the committed moves earn.
 * - `agent` (single variant) commits moves directly.
 * - In parallel turn order (MAGRPO) nobody can read a proposal made in the same turn, so the
 *   tool commits its moves too, before plan's: both roles move the piece, and the team reward
 *   depends on both answers (move-team.ts sets `commits`).
 * An unparseable answer (or one over the move cap) costs the task's invalid-move penalty and
 * is recorded in the history and in StepOutcome.failure.
 */
import type { ParseResult, Role, StepOutcome, TurnContext } from '../types.js';
import { buildMovePrompt } from './move-prompt.js';
import { parseMoves } from './parse-moves.js';
import type { ProgramRecord } from './program-tool.js';
import type { Direction, MoveEnv, MovePresenter, MoveReport, PromptFormat } from './types.js';

export type MoveRoleName = 'tool' | 'plan' | 'agent';

export interface MoveRoleOptions<E extends MoveEnv<R>, R extends MoveReport> {
  readonly name: MoveRoleName;
  readonly format: PromptFormat;
  /** Cap on the moves of one answer; longer answers are a failure. */
  readonly maxMoves: number;
  readonly presenter: MovePresenter<E, R>;
  /** Commit the moves even as `tool` (parallel turn order); by default only non-tool roles commit. */
  readonly commits?: boolean;
}

export function createMoveRole<E extends MoveEnv<R>, R extends MoveReport>(
  options: MoveRoleOptions<E, R>,
): Role<E, Direction[]> {
  const { name, format, maxMoves, presenter } = options;
  const commits = options.commits ?? name !== 'tool';
  return {
    name,
    prompt(env: E, ctx: TurnContext): string {
      return buildMovePrompt({ role: name, env, ctx, format, maxMoves, presenter, showProposal: name === 'plan' });
    },
    parse(text: string): ParseResult<Direction[]> {
      return parseMoves(text, { format, maxMoves });
    },
    step(env: E, action: ParseResult<Direction[]>, ctx: TurnContext): StepOutcome {
      return playMoves({ env, role: name, action, ctx, commits });
    },
  };
}

/**
 * One role's moves on the env: `tool` simulates them on a throwaway copy unless `commits` says
 * otherwise, every other role commits them. A failed action costs the invalid-move penalty. Both cases are recorded in
 * the env's history (with the tool's program, when it wrote one) for later prompts.
 */
export function playMoves<E extends MoveEnv<R>, R extends MoveReport>(input: {
  env: E;
  role: string;
  action: ParseResult<readonly Direction[]>;
  ctx: TurnContext;
  program?: ProgramRecord;
  commits?: boolean;
}): StepOutcome {
  const { env, role, action, ctx, program } = input;
  const simulates = !(input.commits ?? role !== 'tool');
  const kind = simulates ? 'proposal' : 'commit';
  const extra = program === undefined ? {} : { program };
  if (!action.ok) {
    env.record({ turn: ctx.turn, role, kind, failure: action.reason, ...extra });
    const info = { parsed: program !== undefined, ...(program === undefined ? {} : { program: program.reason }) };
    return { local: env.invalidPenalty, failure: `${role}: ${action.reason}`, info };
  }
  // The tool's moves never touch the real board: they play on a throwaway copy.
  const target = simulates ? env.clone() : env;
  const report = target.applyMoves(action.action);
  env.record({
    turn: ctx.turn,
    role,
    kind,
    moves: report.moves,
    report,
    ...(report.failure === undefined ? {} : { failure: report.failure }),
    ...extra,
  });
  const outcome: StepOutcome = {
    local: report.reward,
    // Reports are plain JSON data (letters, counts, numbers), so they double as log info.
    info: {
      parsed: true,
      simulated: simulates,
      ...(program === undefined ? {} : { program: program.reason }),
      ...(report as unknown as Readonly<Record<string, unknown>>),
    },
  };
  return report.failure === undefined ? outcome : { ...outcome, failure: `${role}: ${report.failure}` };
}
