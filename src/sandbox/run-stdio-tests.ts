/**
 * Runs a stdin -> stdout program once per test case (each in its own fresh sandbox, so one
 * case cannot leave state for the next) and compares outputs. The cases run concurrently up
 * to the sandbox's concurrency limit.
 */
import type { Sandbox } from './sandbox.js';
import type { Language, SandboxLimits, StdioTestCase, StdioTestReport } from './types.js';

export interface StdioTestsRequest {
  readonly language: Language;
  readonly code: string;
  readonly tests: readonly StdioTestCase[];
  readonly limits?: Partial<SandboxLimits>;
}

/**
 * Output comparison as competitive-programming judges usually do it: line endings unified,
 * trailing spaces of each line and trailing blank lines ignored; everything else must match.
 */
export function outputsMatch(actual: string, expected: string): boolean {
  const clean = (text: string): string =>
    text
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/\n+$/, '');
  return clean(actual) === clean(expected);
}

export async function runStdioTests(sandbox: Sandbox, request: StdioTestsRequest): Promise<StdioTestReport> {
  const tests = await Promise.all(
    request.tests.map(async (test) => {
      const run = await sandbox.run({
        language: request.language,
        code: request.code,
        stdin: test.input,
        ...(request.limits ? { limits: request.limits } : {}),
      });
      // A program that printed the right answer but then crashed or was cut off did not pass.
      const passed = run.reason === 'ok' && !run.stdoutTruncated && outputsMatch(run.stdout, test.output);
      return { passed, expected: test.output, run };
    }),
  );
  return { passed: tests.filter((t) => t.passed).length, total: tests.length, tests };
}
