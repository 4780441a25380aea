/**
 * The natural-format tool agent of the planning tasks (Plan-Path, Sokoban, Sudoku) writes a
 * Python 3 program that prints its action list (SEEDS.md: "writes a program (BFS / A*) which
 * prints an action list"). This file is the task-independent half of that role:
 *
 * - `parseProgram` reads the program out of the model's answer (a fenced code block);
 * - `ProgramTool.prepare` runs it in the sandbox (small limits) and memoises the outcome by
 *   the code text; `ProgramTool.result` reads it back synchronously for `Role.step`;
 * - the outcome holds the program's output already parsed by the task's action parser, plus
 *   a short summary (`ProgramRecord`) that envs keep in their history for the plan prompt.
 *
 * The program reads no input and embeds the board itself, so its output depends on the code
 * alone: keying the memo by the code text is exact, and clones of an env, tree branches and
 * replays of the chosen branch all find the same run. The memo belongs to the team's tool
 * role (created with the team), the Sandbox is the process-wide one of the code tasks.
 */
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { ExitReason, RunResult, SandboxLimits } from '../../sandbox/types.js';
import { SandboxMemo, sharedSandbox } from '../code/shared-sandbox.js';
import type { ParseResult } from '../types.js';

/** A planning program needs a BFS over a small board: 2 s is generous, loops end fast. */
export const TOOL_PROGRAM_LIMITS: Partial<SandboxLimits> = {
  wallMs: 2000,
  cpuMs: 2000,
  memoryMb: 256,
  outputBytes: 64 * 1024,
};

/** Distinct programs remembered per team; outcomes are small (trimmed text), so this is cheap. */
const MEMO_CAPACITY = 4096;
/** Characters of the program's output and error text kept for prompts and logs. */
const OUTPUT_SHOWN = 600;
const STDERR_SHOWN = 400;
/** Characters of the error's last line that go into the failure reason. */
const REASON_STDERR = 160;

/** What a run of the tool's program looked like: kept in env histories, shown to `plan`. */
export interface ProgramRecord {
  /** The program as run. */
  readonly code: string;
  readonly reason: ExitReason;
  /** What it printed (cut to its last OUTPUT_SHOWN characters when longer). */
  readonly output: string;
  /** The end of its error output ('' when none). */
  readonly stderr: string;
}

/** The memoised outcome of one program: the record plus its output read as an action. */
export interface ProgramOutcome<A> {
  readonly record: ProgramRecord;
  /** The output read by the task's parser; a failed run is `{ ok: false }` with its reason. */
  readonly action: ParseResult<A>;
}

const FENCE = /```([\w+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;
const PYTHON_TAGS = new Set(['python', 'py', 'python3']);

/**
 * The program in a model's answer: the last ```python block, else the last fenced block of any
 * language (```` ``` ```` alone included); a block cut off by the token limit (no closing fence)
 * runs to the end of the text. Answers without a fence are a failure with a reason: prose
 * around a bare program cannot be told apart from the program reliably.
 */
export function parseProgram(text: string): ParseResult<string> {
  const blocks = [...text.matchAll(FENCE)].map((m) => ({ lang: (m[1] ?? '').toLowerCase(), body: m[2] ?? '' }));
  if (blocks.length === 0) {
    return { ok: false, reason: 'no program: put the Python program in a ```python code block' };
  }
  const python = blocks.filter((b) => PYTHON_TAGS.has(b.lang));
  const chosen = (python.length > 0 ? python : blocks).at(-1)!;
  const code = chosen.body.replace(/^(\s*\n)+/, '').replace(/\s+$/, '');
  if (code.trim() === '') return { ok: false, reason: 'no program: the code block is empty' };
  return { ok: true, action: `${code}\n` };
}

function tail(text: string, chars: number): string {
  const trimmed = text.trimEnd();
  return trimmed.length <= chars ? trimmed : `...${trimmed.slice(trimmed.length - chars)}`;
}

/** Why a run that did not end well failed: exit reason plus the error's last line. */
export function runFailure(run: Pick<RunResult, 'reason' | 'stderr'>, limits: Partial<SandboxLimits> = TOOL_PROGRAM_LIMITS): string {
  const last = run.stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '').at(-1);
  const detail =
    last !== undefined
      ? `: ${last.length > REASON_STDERR ? `${last.slice(0, REASON_STDERR)}...` : last}`
      : run.reason === 'timeout'
        ? ` (limit ${(limits.wallMs ?? 0) / 1000} s)`
        : run.reason === 'output-limit'
          ? ` (limit ${limits.outputBytes ?? 0} bytes)`
          : '';
  return `program ${run.reason}${detail}`;
}

export interface ProgramToolOptions<A> {
  /** Reads the program's standard output as the task's action (never throws). */
  readonly readOutput: (stdout: string) => ParseResult<A>;
  /** Default: the process-wide sandbox shared with the code tasks (concurrency 2). */
  readonly sandbox?: () => Sandbox;
  readonly limits?: Partial<SandboxLimits>;
}

export class ProgramTool<A> {
  private readonly memo = new SandboxMemo<ProgramOutcome<A>>(MEMO_CAPACITY);
  private readonly sandbox: () => Sandbox;
  readonly limits: Partial<SandboxLimits>;
  /** Programs actually run (memo misses), for tests and logs. */
  runs = 0;

  constructor(private readonly options: ProgramToolOptions<A>) {
    this.sandbox = options.sandbox ?? sharedSandbox;
    this.limits = options.limits ?? TOOL_PROGRAM_LIMITS;
  }

  /** Runs `code` in the sandbox unless an earlier call did (concurrent callers share a run). */
  async prepare(code: string): Promise<void> {
    await this.memo.ensure(code, async () => {
      this.runs++;
      const run = await this.sandbox().run({ language: 'python', code, limits: this.limits });
      return this.outcome(code, run);
    });
  }

  /** The outcome `prepare` stored; an invariant error when it did not run first. */
  result(code: string, what: string): ProgramOutcome<A> {
    return this.memo.get(code, what);
  }

  private outcome(code: string, run: RunResult): ProgramOutcome<A> {
    const record: ProgramRecord = {
      code,
      reason: run.reason,
      output: tail(run.stdout, OUTPUT_SHOWN),
      stderr: tail(run.stderr, STDERR_SHOWN),
    };
    if (run.reason !== 'ok') return { record, action: { ok: false, reason: runFailure(run, this.limits) } };
    const action = this.options.readOutput(run.stdout);
    return { record, action: action.ok ? action : { ok: false, reason: `program output unusable: ${action.reason}` } };
  }
}
