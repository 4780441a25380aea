/**
 * The failure reason of a coop-code sample (DESIGN.md invariant 5: every outcome that earns
 * less than full credit says why). A role's reason names its own code first: `aux` answers
 * for its helper only (in joint and sequential play it acts before `main`, so the pair it
 * sees is not the final one); `main` acts last and also answers for the pair: the combined
 * program, the asserts, the run.
 */
import type { CoopEvaluation, TestOutcome } from './evaluate-coop.js';

/** Why tests fell short: a crash, timeout or definition error, else the count of failed asserts. */
export function testsFailure(tests: TestOutcome): string | undefined {
  if (tests.error) return tests.error.slice(0, 160);
  if (tests.allPassed) return undefined;
  if (tests.total === 0) return `no asserts ran (${tests.reason})`;
  return `failed ${tests.total - tests.passed} of ${tests.total} asserts`;
}

export function pairFailure(slot: 'aux' | 'main', ev: CoopEvaluation, entryPoint: string): string | undefined {
  const a = ev.analysis;
  if (!a) return ev.tests.error ?? `the analysis did not finish (${ev.tests.reason})`;
  if (slot === 'aux') {
    if (a.aux_defined) return undefined;
    return `aux: ${a.aux_error ?? 'no top-level function aux that returns a value'}`;
  }
  if (!a.main_defined) return `main: ${a.main_error ?? `no top-level function ${entryPoint} that returns a value`}`;
  if (!a.syntax_ok) return a.syntax_error ?? 'the combined program does not compile';
  return testsFailure(ev.tests);
}
