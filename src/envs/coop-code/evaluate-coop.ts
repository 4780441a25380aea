/**
 * Runs the sandbox checks of the coop-code task and condenses them into what rewards and
 * feedback need: the analysis (for the 4-level reward) and the test counts with the failing
 * asserts' source. One sandbox run per pair (analysis script + assert harness).
 */
import type { HumanEvalProblem } from '../../datasets/humaneval-problem.js';
import { parseHarnessChannel, runHumanEval, toAssertReport } from '../../sandbox/run-humaneval.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { AssertReport, ExitReason } from '../../sandbox/types.js';
import { COOP_SCRIPT, readAnalysis, type CoopAnalysis } from './analysis-script.js';

/** Test outcome of a program, as the rewards and the feedback transition read it. */
export interface TestOutcome {
  readonly passed: number;
  readonly total: number;
  readonly allPassed: boolean;
  readonly reason: ExitReason;
  /** Source of the asserts that failed (when known), for self-evolution feedback. */
  readonly failing: readonly string[];
  /** What went wrong beyond failed asserts (definition error, crash, timeout). */
  readonly error?: string;
}

export interface CoopEvaluation {
  /** Undefined when the analysis itself did not finish (the script was killed). */
  readonly analysis?: CoopAnalysis;
  readonly tests: TestOutcome;
}

/** Some HumanEval checks run for seconds (canonical solutions by brute force); 10 s is generous. */
const DEFAULT_LIMITS = { wallMs: 10_000, cpuMs: 10_000 };

export const NOT_RUN: TestOutcome = { passed: 0, total: 0, allPassed: false, reason: 'ok', failing: [] };

function outcome(report: AssertReport, asserts: readonly string[] | undefined, failed: readonly number[]): TestOutcome {
  return {
    passed: report.passed,
    total: report.total,
    allPassed: report.allPassed,
    reason: report.run.reason,
    failing: asserts ? failed.map((k) => asserts[k] ?? `assert #${k + 1}`) : failed.map((k) => `assert #${k + 1}`),
    ...(report.failure ? { error: `${report.failure.stage}: ${report.failure.message}`.slice(0, 300) } : {}),
  };
}

function failedIndices(asserts: ReadonlyMap<number, boolean>, total: number): number[] {
  return Array.from({ length: total }, (_, k) => k).filter((k) => asserts.get(k) !== true);
}

export async function evaluateCoop(
  sandbox: Sandbox,
  problem: HumanEvalProblem,
  aux: string,
  main: string,
  limits: { wallMs: number; cpuMs: number } = DEFAULT_LIMITS,
): Promise<CoopEvaluation> {
  const run = await sandbox.run({
    language: 'python',
    code: COOP_SCRIPT,
    files: { 'aux.py': aux, 'main_fn.py': main, 'prefix.py': problem.prompt, 'test.py': problem.test, 'entry.txt': problem.entryPoint },
    channel: true,
    limits,
  });
  const analysis = readAnalysis(run.channel);
  if (!analysis || !analysis.main_defined || !analysis.syntax_ok) {
    const error = analysis ? undefined : `analysis did not finish (${run.reason}): ${run.stderr.slice(-200)}`;
    return { ...(analysis ? { analysis } : {}), tests: { ...NOT_RUN, reason: run.reason, ...(error ? { error } : {}) } };
  }
  const harness = parseHarnessChannel(run.channel);
  const report = toAssertReport(harness, run);
  return { analysis, tests: outcome(report, analysis.asserts, failedIndices(harness.asserts, report.total)) };
}

/** HumanEval semantics for the single agent: prompt + completion, then check(entry_point). */
export async function evaluateCompletion(
  sandbox: Sandbox,
  problem: HumanEvalProblem,
  completion: string,
  limits: { wallMs: number; cpuMs: number } = DEFAULT_LIMITS,
): Promise<TestOutcome> {
  const report = await runHumanEval(sandbox, { prompt: problem.prompt, completion, test: problem.test, entryPoint: problem.entryPoint }, limits);
  const failed = failedIndices(parseHarnessChannel(report.run.channel).asserts, report.total);
  return outcome(report, undefined, failed);
}
