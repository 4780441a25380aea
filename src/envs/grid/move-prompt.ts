/**
 * Builds the prompt of a grid-task role. The layout is fixed so that the scripted player (and
 * a small model) can read it back: the board rows are lines made only of board characters,
 * compact prompts end with the marker line `A:`, natural prompts with `Answer:`.
 *
 * Compact (a 10x10 Plan-Path `plan` prompt, ~180 characters). It uses only upper case, digits and
 * a few symbols, all inside the standard 64-token character vocabulary of the small models:
 *
 *     PLAN 1/4 M20
 *     ..#.......        (one line per board row)
 *     TOOL RRDD
 *     SIM END 4,5 HIT1 R=-0.35      (rows and columns count from 1)
 *     A:
 *
 * `M20` is the move cap of one answer. `TOOL ?` means the tool's text could not be parsed,
 * `TOOL -` that it has not proposed anything this turn (parallel turn order).
 *
 * Natural: the role's job, the rules and legend, the board rows (plain, so a program can copy
 * them), coordinates of the pieces, the last commit; the `tool` is asked for a Python program
 * that prints the moves (program-move-role.ts), and `plan` sees that program, its output and
 * the simulated result before it writes the moves, ending with `Answer:`.
 */
import { formatMoves } from './parse-moves.js';
import { PROGRAM_REPLY, programLines, programTerms } from './program-prompt.js';
import type { TurnContext } from '../types.js';
import type { Direction, MoveEnv, MovePresenter, MoveRecord, MoveReport, PromptFormat } from './types.js';

export const COMPACT_ANSWER_MARKER = 'A:';
export const NATURAL_ANSWER_MARKER = 'Answer:';

/** What each role is told about its job in natural prompts. */
const NATURAL_ROLE_JOBS: Readonly<Record<string, string>> = {
  tool: 'You are the tool agent of a two-agent team. Write a Python 3 program that prints a good move list for the board below. The moves it prints are simulated on a copy of the board and shown, with your program and its output, to the plan agent, who commits the moves that are really played.',
  plan: 'You are the plan agent of a two-agent team. The tool agent wrote a program that prints a move list, and its moves were simulated on a copy of the board. Commit the moves that are really played.',
  agent: 'You are the agent. The moves you write are played on the board.',
};

export interface MovePromptInput<E extends MoveEnv<R>, R extends MoveReport> {
  readonly role: string;
  readonly env: E;
  readonly ctx: TurnContext;
  readonly format: PromptFormat;
  readonly maxMoves: number;
  readonly presenter: MovePresenter<E, R>;
  /** Show this turn's tool proposal and its simulated result (the `plan` role). */
  readonly showProposal: boolean;
}

export function buildMovePrompt<E extends MoveEnv<R>, R extends MoveReport>(input: MovePromptInput<E, R>): string {
  return input.format === 'compact' ? compactPrompt(input) : naturalPrompt(input);
}

function compactPrompt<E extends MoveEnv<R>, R extends MoveReport>(input: MovePromptInput<E, R>): string {
  const { role, env, ctx, maxMoves, presenter } = input;
  const status = presenter.status(env, 'compact');
  const lines = [`${role.toUpperCase()} ${ctx.turn + 1}/${ctx.maxTurns} M${maxMoves}${status === '' ? '' : ` ${status}`}`];
  lines.push(...presenter.board(env));
  if (input.showProposal) {
    const proposal = currentProposal(env, ctx);
    if (proposal === undefined) lines.push('TOOL -');
    else if (proposal.report === undefined || proposal.moves === undefined) lines.push('TOOL ?');
    else lines.push(`TOOL ${proposal.moves}`, `SIM ${presenter.describe(proposal.report, 'compact')}`);
  }
  lines.push(COMPACT_ANSWER_MARKER);
  return lines.join('\n');
}

function naturalPrompt<E extends MoveEnv<R>, R extends MoveReport>(input: MovePromptInput<E, R>): string {
  const { role, env, ctx, maxMoves, presenter } = input;
  const lines: string[] = [NATURAL_ROLE_JOBS[role] ?? `You are the ${role} agent.`, ...presenter.rules(env), ''];
  lines.push(`Turn ${ctx.turn + 1} of ${ctx.maxTurns}. The board now (row 1 at the top):`, '');
  const board = presenter.board(env);
  lines.push(...board, '');
  if (presenter.landmarks !== undefined) {
    const width = board[0]?.length ?? 0;
    lines.push(`Rows are numbered 1 to ${board.length} from the top, columns 1 to ${width} from the left. ${presenter.landmarks(env)}`);
  }
  const status = presenter.status(env, 'natural');
  if (status !== '') lines.push(status);
  const last = lastCommit(env);
  if (last !== undefined) lines.push(`Last turn the team played ${describeRecord(last, presenter)}`);
  if (input.showProposal) {
    const proposal = currentProposal(env, ctx);
    if (proposal === undefined) lines.push('The tool agent has not proposed moves this turn.');
    else {
      if (proposal.program !== undefined) lines.push(...programLines(proposal.program));
      lines.push(`The tool agent proposed ${describeRecord(proposal, presenter)}`);
    }
  }
  if (role === 'tool') {
    lines.push(
      `${programTerms()} A breadth-first search over the game's states, with the board rows copied into the program, finds a shortest plan.`,
      `Moves: U = up (row - 1), D = down (row + 1), L = left (column - 1), R = right (column + 1).`,
      `The program prints at most ${maxMoves} moves on its last output line, as letters separated by spaces, like: U R R D`,
      PROGRAM_REPLY,
    );
  } else {
    lines.push(`Write at most ${maxMoves} moves (U = up, D = down, L = left, R = right) as a list like: U, R, R, D`);
  }
  lines.push(NATURAL_ANSWER_MARKER);
  return lines.join('\n');
}

function describeRecord<R extends MoveReport>(record: MoveRecord<R>, presenter: MovePresenter<any, R>): string {
  if (record.report === undefined || record.moves === undefined) {
    return `an answer that could not be used (${record.failure ?? 'unknown reason'}).`;
  }
  const moves = formatMoves([...record.moves] as Direction[], 'natural');
  return `${moves}; on ${record.kind === 'proposal' ? 'a copy of the board' : 'the board'} it ${presenter.describe(record.report, 'natural')}`;
}

/** The tool's proposal of this turn, if any (the latest one when there are several). */
export function currentProposal<R extends MoveReport>(env: MoveEnv<R>, ctx: TurnContext): MoveRecord<R> | undefined {
  for (let i = env.history.length - 1; i >= 0; i--) {
    const record = env.history[i]!;
    if (record.turn !== ctx.turn) return undefined;
    if (record.kind === 'proposal') return record;
  }
  return undefined;
}

function lastCommit<R extends MoveReport>(env: MoveEnv<R>): MoveRecord<R> | undefined {
  for (let i = env.history.length - 1; i >= 0; i--) {
    if (env.history[i]!.kind === 'commit') return env.history[i];
  }
  return undefined;
}
