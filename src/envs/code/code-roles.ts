/**
 * The roles of the `code` task. Rewards (docs/tasks.md):
 * - coder: local = fraction of the HIDDEN tests its program passes (0 for an unreadable
 *   answer). The team's global reward is the same fraction for the current program.
 * - tester: local = fraction of its cases whose expected output agrees with the dataset's
 *   reference program on the same input; without a reference program, agreement with the
 *   coder's program when that program passes every hidden test; otherwise 0.
 * Sandbox work happens in `prepare` (memoised); `step` only reads the results. Every answer
 * short of full credit carries a failure reason (failed k of n hidden tests and how; cases
 * that disagree with the reference).
 */
import type { StdioTestCase } from '../../sandbox/types.js';
import type { ParseResult, Role, StepOutcome, TeamOptions } from '../types.js';
import { runKey, type CodeEnv, type Mismatch } from './code-env.js';
import { coderPrompt, testerPrompt } from './code-prompts.js';
import { extractCode } from './extract-code.js';
import { parseTestCases } from './parse-test-cases.js';
import { pythonErrorSummary } from './python-error.js';
import { runStdioBatch, type CaseResult } from './run-stdio-batch.js';
import { sharedSandbox } from './shared-sandbox.js';

function ensureRun(env: CodeEnv, code: string, cases: readonly StdioTestCase[]): Promise<CaseResult[]> {
  return env.memo.ensure(runKey(code, cases), () => runStdioBatch(sharedSandbox(), { code, cases }));
}

/** Hidden tests first, then the tester's: one sandbox run for both. */
function casesOf(env: CodeEnv, tests: readonly StdioTestCase[] | null): StdioTestCase[] {
  return [...env.problem.tests, ...(tests ?? [])];
}

function describe(result: CaseResult): string {
  if (result.reason === 'ok') return result.actual;
  const last = result.error.trim().split('\n').pop() ?? '';
  return `(${result.reason}${last ? `: ${last}` : ''})`;
}

/** Why a program earned less than full credit: how many hidden tests failed, and how. */
function hiddenFailure(hidden: readonly CaseResult[]): string | undefined {
  const failed = hidden.filter((r) => !r.passed);
  if (failed.length === 0) return undefined;
  const crash = failed.find((r) => r.reason !== 'ok');
  const how = !crash ? 'wrong output' : crash.reason === 'error' ? pythonErrorSummary(crash.error) : crash.reason === 'not-run' ? crash.error : crash.reason;
  return `failed ${failed.length} of ${hidden.length} hidden tests: ${how}`;
}

/** Re-reads the current program's results for the current cases into the env. */
function refresh(env: CodeEnv): void {
  if (env.code === null) return;
  const results = env.memo.get(runKey(env.code, casesOf(env, env.tests)), `${env.taskId} code run`);
  const hidden = env.problem.tests.length;
  env.hiddenPassed = results.slice(0, hidden).filter((r) => r.passed).length;
  env.mismatches = (env.tests ?? []).flatMap((test, i): Mismatch[] => {
    const r = results[hidden + i]!;
    return r.passed ? [] : [{ input: test.input, expected: test.output, actual: describe(r) }];
  });
}

export function createCoderRole(name: string, format: TeamOptions['format'], alone: boolean): Role<CodeEnv, string> {
  return {
    name,
    prompt: (env) => coderPrompt(env, format, alone),
    parse(text): ParseResult<string> {
      const code = extractCode(text);
      return code === undefined ? { ok: false, reason: 'no program found in the answer' } : { ok: true, action: code };
    },
    async prepare(env, action) {
      if (action.ok) await ensureRun(env, action.action, casesOf(env, env.tests));
    },
    step(env, action): StepOutcome {
      if (!action.ok) {
        env.notes.push(`${name}: answer had no program (${action.reason})`);
        return { local: 0, failure: `parse: ${action.reason}` };
      }
      env.code = action.action;
      refresh(env);
      const total = env.problem.tests.length;
      const info = { hidden_passed: env.hiddenPassed, hidden_total: total, mismatches: env.mismatches.length };
      const hidden = env.memo.get(runKey(env.code, casesOf(env, env.tests)), name).slice(0, total);
      const failure = hiddenFailure(hidden);
      return { local: env.hiddenPassed / total, info, ...(failure ? { failure } : {}) };
    },
  };
}

export function createTesterRole(format: TeamOptions['format']): Role<CodeEnv, StdioTestCase[]> {
  return {
    name: 'tester',
    prompt: (env) => testerPrompt(env, format),
    parse: parseTestCases,
    async prepare(env, action) {
      if (!action.ok) return;
      const runs: Promise<unknown>[] = [];
      if (env.code !== null) runs.push(ensureRun(env, env.code, casesOf(env, action.action)));
      if (env.problem.solution !== undefined) runs.push(ensureRun(env, env.problem.solution, action.action));
      await Promise.all(runs);
    },
    step(env, action): StepOutcome {
      if (!action.ok) {
        env.notes.push(`tester: answer had no test cases (${action.reason})`);
        return { local: 0, failure: `parse: ${action.reason}` };
      }
      const tests = action.action;
      env.tests = tests;
      refresh(env);
      let agreeing = 0;
      let against = 'a program that passes the hidden tests';
      if (env.problem.solution !== undefined) {
        agreeing = env.memo.get(runKey(env.problem.solution, tests), 'tester reference run').filter((r) => r.passed).length;
        against = 'the reference solution';
      } else if (env.success) {
        agreeing = tests.length - env.mismatches.length;
      }
      const failure =
        agreeing === tests.length
          ? undefined
          : env.problem.solution === undefined && !env.success
            ? 'cases not checked: the problem has no reference solution and no program passes the hidden tests yet'
            : `${tests.length - agreeing} of ${tests.length} cases disagree with ${against}`;
      return { local: agreeing / tests.length, info: { cases: tests.length, agreeing, mismatches: env.mismatches.length }, ...(failure ? { failure } : {}) };
    },
  };
}
