/**
 * Checks a HumanEval-style program (prompt + completion, a `check(candidate)` test, an entry
 * point) in the sandbox and counts passed / total assert statements (see `AssertReport`).
 */
import { ASSERT_HARNESS } from './assert-harness.js';
import type { Sandbox } from './sandbox.js';
import type { AssertReport, HumanEvalProgram, RunResult, SandboxLimits } from './types.js';

/** What the harness said on its channel (protocol in assert-harness.ts). */
export interface HarnessOutcome {
  readonly total: number | null;
  /** Final status per assert index (a failure on any run is sticky). */
  readonly asserts: ReadonlyMap<number, boolean>;
  readonly definition: 'ok' | 'fail' | null;
  readonly failure?: { readonly stage: 'definition' | 'check'; readonly message: string };
  readonly ended: boolean;
}

/** Parses the harness channel. Unknown lines are ignored; a cut-off last line is dropped. */
export function parseHarnessChannel(channel: string): HarnessOutcome {
  let total: number | null = null;
  let definition: 'ok' | 'fail' | null = null;
  let failure: HarnessOutcome['failure'];
  let ended = false;
  const asserts = new Map<number, boolean>();
  const lines = channel.split('\n');
  if (!channel.endsWith('\n')) lines.pop();
  for (const line of lines) {
    const [tag, a, ...rest] = line.split(' ');
    if (tag === 'T' && a !== undefined) total = Number(a);
    else if (tag === 'D' && a === 'ok') definition = 'ok';
    else if (tag === 'D' && a === 'fail') {
      definition = 'fail';
      failure = { stage: 'definition', message: rest.join(' ') };
    } else if (tag === 'A' && a !== undefined && rest[0] !== undefined) {
      const k = Number(a);
      asserts.set(k, (asserts.get(k) ?? true) && rest[0] === '1');
    } else if (tag === 'C' && a === 'fail') failure = { stage: 'check', message: rest.join(' ') };
    else if (tag === 'E') ended = true;
  }
  return { total, asserts, definition, ...(failure ? { failure } : {}), ended };
}

/** Combines the harness outcome and the run into the report the rewards read. */
export function toAssertReport(outcome: HarnessOutcome, run: RunResult): AssertReport {
  const total = outcome.total ?? 0;
  let passed = 0;
  for (const [k, ok] of outcome.asserts) if (ok && k < total) passed++;
  const runFailed = !outcome.ended && !outcome.failure;
  const failure = outcome.failure
    ? outcome.failure
    : runFailed
      ? { stage: 'run' as const, message: `the program stopped early (${run.reason}): ${run.stderr.slice(-300)}` }
      : undefined;
  const allPassed = outcome.ended && run.reason === 'ok' && passed === total;
  return { passed, total, allPassed, ...(failure ? { failure } : {}), run };
}

export async function runHumanEval(
  sandbox: Sandbox,
  program: HumanEvalProgram,
  limits?: Partial<SandboxLimits>,
): Promise<AssertReport> {
  const run = await sandbox.run({
    language: 'python',
    code: ASSERT_HARNESS,
    files: {
      'program.py': program.prompt + program.completion,
      'test.py': program.test,
      'entry.txt': program.entryPoint,
    },
    channel: true,
    ...(limits ? { limits } : {}),
  });
  return toAssertReport(parseHarnessChannel(run.channel), run);
}
