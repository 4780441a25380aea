/**
 * The Sudoku roles. Team variant: `tool` proposes fills, which are judged on a copy of the
 * board (the board never changes) and recorded so `plan`'s prompt in the same turn shows the
 * proposal and its verdicts; `plan` commits the final fills. Single variant: `agent` commits
 * directly. In the natural format the tool writes a Python program that prints its fills (run
 * in the sandbox). Local rewards: tool earns what its proposal would earn, plan and agent what their
 * committed fills earn (table in sudoku-rewards.ts).
 */
import { ProgramTool, parseProgram, type ProgramRecord } from '../grid/program-tool.js';
import type { ParseResult, Role, StepOutcome, TurnContext } from '../types.js';
import type { Fill, FillsOutcome } from './apply-fills.js';
import { parseCompactFills, parseNaturalFills } from './parse-fills.js';
import type { SudokuEnv } from './sudoku-env.js';
import { emptyCount } from './sudoku-grid.js';
import type { MoveHistory } from '../grid/last-move.js';
import { type SudokuHint, compactPrompt, naturalPrompt } from './sudoku-prompts.js';
import type { PromptFormat } from './sudoku-render.js';
import { SUDOKU_REWARDS } from './sudoku-rewards.js';

export interface SudokuRoleOptions {
  readonly format: PromptFormat;
  /** More fills than this in one answer void the answer (parse failure). */
  readonly maxFills: number;
  /** Extra compact-prompt facts (sudoku-prompts.ts); natural prompts ignore it. */
  readonly hint?: SudokuHint;
  /** Compact prompts: `last` shows the previous turn's played fills (sudoku-prompts.ts). */
  readonly history?: MoveHistory;
}

type SudokuRole = Role<SudokuEnv, Fill[]>;

function parserFor(options: SudokuRoleOptions): (text: string) => ParseResult<Fill[]> {
  return options.format === 'compact'
    ? (text) => parseCompactFills(text, options.maxFills)
    : (text) => parseNaturalFills(text, options.maxFills);
}

/** `invalid fills: 1 conflict, 2 given` when any fill was rejected, else undefined. */
function invalidSummary(outcome: FillsOutcome): string | undefined {
  const counts = new Map<string, number>();
  for (const r of outcome.results) if (r.verdict !== 'ok') counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
  if (counts.size === 0) return undefined;
  return `invalid fills: ${[...counts].map(([verdict, n]) => `${n} ${verdict}`).join(', ')}`;
}

/**
 * Shared step logic: the tool simulates (the board never changes), plan and agent commit. A
 * parse failure costs the parse penalty, changes nothing on the board and is recorded for later
 * prompts. Failures read `<role>: <reason>` like the grid tasks' failures.
 */
function stepWith(
  env: SudokuEnv,
  role: string,
  kind: 'proposal' | 'commit',
  action: ParseResult<Fill[]>,
  ctx: TurnContext,
  program?: ProgramRecord,
): StepOutcome {
  const extra = program === undefined ? {} : { program };
  const ran = program === undefined ? {} : { program: program.reason };
  if (!action.ok) {
    const reward = SUDOKU_REWARDS.parseFailure;
    env.record({ turn: ctx.turn, role, kind, fills: [], results: [], reward, solved: false, empty: emptyCount(env.cells), failure: action.reason, ...extra });
    return { local: reward, failure: `${role}: ${action.reason}`, info: { parsed: program !== undefined, ...ran } };
  }
  const outcome = kind === 'proposal' ? env.simulate(action.action) : env.commit(action.action);
  env.record({
    turn: ctx.turn,
    role,
    kind,
    fills: action.action,
    results: outcome.results,
    reward: outcome.reward,
    solved: outcome.solved,
    empty: outcome.empty,
    ...extra,
  });
  const applied = outcome.results.filter((r) => r.verdict === 'ok').length;
  const info = {
    parsed: true,
    simulated: kind === 'proposal',
    ...ran,
    fills: outcome.results.length,
    applied,
    rejected: outcome.results.length - applied,
    solved: outcome.solved,
    empty: outcome.empty,
  };
  const reason = invalidSummary(outcome) ?? (kind === 'commit' ? env.failureReason : undefined);
  return reason === undefined ? { local: outcome.reward, info } : { local: outcome.reward, failure: `${role}: ${reason}`, info };
}

/** The compact-format tool: it writes the fills themselves (natural: createProgramToolRole). */
export function createToolRole(options: Omit<SudokuRoleOptions, 'format'>): SudokuRole {
  const { maxFills, hint, history } = options;
  return {
    name: 'tool',
    prompt: (env, ctx) => compactPrompt({ env, role: 'tool', ctx, maxFills, hint, history }),
    parse: parserFor({ format: 'compact', maxFills }),
    step: (env, action, ctx) => stepWith(env, 'tool', 'proposal', action, ctx),
  };
}

/** `plan` (team variant, sees the tool's proposal) or `agent` (single variant). */
export function createCommitRole(name: 'plan' | 'agent', options: SudokuRoleOptions): SudokuRole {
  const { format, maxFills, hint, history } = options;
  const build = format === 'compact' ? compactPrompt : naturalPrompt;
  return {
    name,
    prompt: (env, ctx) => build({ env, role: name, ctx, maxFills, hint, history }),
    parse: parserFor(options),
    step: (env, action, ctx) => stepWith(env, name, 'commit', action, ctx),
  };
}

/**
 * The natural-format tool: it answers with a Python program that prints fills as
 * (row, column, digit) triples (grid/program-tool.ts). `prepare` runs it in the sandbox;
 * `step` judges the printed fills on a copy of the board like the compact tool's fills and
 * records program, output and verdicts for the plan prompt. A missing program, a failed run
 * or output without fills costs the parse-failure penalty and is recorded with its reason.
 */
export function createProgramToolRole(options: { readonly maxFills: number; readonly tool?: ProgramTool<Fill[]> }): Role<SudokuEnv, string> {
  const { maxFills } = options;
  const tool = options.tool ?? new ProgramTool<Fill[]>({ readOutput: (stdout) => parseNaturalFills(stdout, maxFills) });
  return {
    name: 'tool',
    prompt: (env, ctx) => naturalPrompt({ env, role: 'tool', ctx, maxFills }),
    parse: parseProgram,
    async prepare(_env, action) {
      if (action.ok) await tool.prepare(action.action);
    },
    step(env, action, ctx) {
      if (!action.ok) return stepWith(env, 'tool', 'proposal', action, ctx);
      const run = tool.result(action.action, `${env.taskId} tool program`);
      return stepWith(env, 'tool', 'proposal', run.action, ctx, run.record);
    },
  };
}
