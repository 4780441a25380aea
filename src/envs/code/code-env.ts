/**
 * The live state of one `code` task (SEEDS.md, Code): a stdin -> stdout problem with hidden
 * tests, the coder's latest program and the tester's latest test cases, and what the sandbox
 * said about them. Problem data and the result memo are shared by clones (immutable / keyed);
 * everything the episode changes is copied.
 */
import type { StdioProblem } from '../../datasets/stdio-problem.js';
import type { StdioTestCase } from '../../sandbox/types.js';
import type { Env } from '../types.js';
import type { CaseResult } from './run-stdio-batch.js';
import type { SandboxMemo } from './shared-sandbox.js';

/** A tester case the coder's program did not satisfy (what both roles see from turn 2). */
export interface Mismatch {
  readonly input: string;
  readonly expected: string;
  /** The program's output, or why it produced none (timeout, error: ...). */
  readonly actual: string;
}

export class CodeEnv implements Env {
  readonly taskId: string;
  readonly problem: StdioProblem;
  readonly memo: SandboxMemo<CaseResult[]>;
  code: string | null = null;
  tests: StdioTestCase[] | null = null;
  /** Hidden tests the current program passes. */
  hiddenPassed = 0;
  /** Tester cases the current program fails (empty when either is missing). */
  mismatches: Mismatch[] = [];
  /** Unreadable answers so far, e.g. `tester: no test cases found`, for the prompts. */
  notes: string[] = [];

  constructor(options: { taskId: string; problem: StdioProblem; memo: SandboxMemo<CaseResult[]> }) {
    this.taskId = options.taskId;
    this.problem = options.problem;
    this.memo = options.memo;
  }

  get success(): boolean {
    return this.code !== null && this.hiddenPassed === this.problem.tests.length;
  }

  /** Coder and tester agree: the program passes every one of the tester's cases. */
  get agreed(): boolean {
    return this.code !== null && this.tests !== null && this.tests.length > 0 && this.mismatches.length === 0;
  }

  /**
   * The episode ends when coder and tester agree (the program passes every one of the
   * tester's cases), as in PettingLLMs: the hidden tests decide success, never the flow of
   * the episode. A single coder has no tester, so it plays every turn.
   */
  get done(): boolean {
    return this.agreed;
  }

  clone(): this {
    const copy = new CodeEnv(this);
    copy.code = this.code;
    copy.tests = this.tests === null ? null : [...this.tests];
    copy.hiddenPassed = this.hiddenPassed;
    copy.mismatches = [...this.mismatches];
    copy.notes = [...this.notes];
    return copy as this;
  }
}

/** Sandbox memo key of a program run on a list of cases. */
export function runKey(code: string, cases: readonly StdioTestCase[]): string {
  return `${code}\u0000${JSON.stringify(cases)}`;
}
