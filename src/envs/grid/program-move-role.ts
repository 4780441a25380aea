/**
 * The natural-format `tool` role of the grid tasks: it answers with a Python program that
 * prints a move list (see program-tool.ts). `prepare` runs the program in the sandbox;
 * `step` reads the memoised run, simulates the printed moves on a copy of the env exactly as
 * the compact tool's moves are simulated, and records program, output, moves and simulated
 * result in the env's history, where the plan prompt shows them. Local reward = the
 * simulated reward; an answer without a program, a failed run (error, timeout, memory,
 * output limit) or output that is not a move list costs the invalid-move penalty and is
 * recorded with its reason.
 */
import type { ParseResult, Role, StepOutcome, TurnContext } from '../types.js';
import { buildMovePrompt } from './move-prompt.js';
import { playMoves } from './move-roles.js';
import { parseMoveOutput } from './parse-moves.js';
import { ProgramTool, parseProgram } from './program-tool.js';
import type { Direction, MoveEnv, MovePresenter, MoveReport } from './types.js';

export function createProgramMoveRole<E extends MoveEnv<R>, R extends MoveReport>(options: {
  maxMoves: number;
  presenter: MovePresenter<E, R>;
  /** Default: a new tool on the shared sandbox (tests pass their own to count runs). */
  tool?: ProgramTool<Direction[]>;
}): Role<E, string> {
  const { maxMoves, presenter } = options;
  const tool = options.tool ?? new ProgramTool<Direction[]>({ readOutput: (stdout) => parseMoveOutput(stdout, maxMoves) });
  return {
    name: 'tool',
    prompt(env: E, ctx: TurnContext): string {
      return buildMovePrompt({ role: 'tool', env, ctx, format: 'natural', maxMoves, presenter, showProposal: false });
    },
    parse: parseProgram,
    async prepare(_env: E, action: ParseResult<string>): Promise<void> {
      if (action.ok) await tool.prepare(action.action);
    },
    step(env: E, action: ParseResult<string>, ctx: TurnContext): StepOutcome {
      if (!action.ok) return playMoves({ env, role: 'tool', action, ctx });
      const run = tool.result(action.action, `${env.taskId} tool program`);
      return playMoves({ env, role: 'tool', action: run.action, ctx, program: run.record });
    },
  };
}
