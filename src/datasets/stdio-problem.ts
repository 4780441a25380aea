/**
 * Stdin -> stdout problems (the shape of APPS / CodeContests / LiveCodeBench test data): a
 * question, hidden test cases `{input, output}`, optionally an id and a reference program
 * (`solution`, Python 3) that the reference policy answers with.
 *
 *   {"id": "sum-2", "question": "Read a and b; print a+b.", "tests": [{"input": "1 2\n", "output": "3\n"}]}
 */
import type { StdioTestCase } from '../sandbox/types.js';
import { TroupeError } from '../util/errors.js';
import { readJsonl, stringField } from './read-jsonl.js';

export interface StdioProblem {
  readonly id: string;
  readonly question: string;
  readonly tests: readonly StdioTestCase[];
  readonly solution?: string;
}

export function readStdioProblems(path: string): StdioProblem[] {
  return readJsonl(path).map((row) => {
    const where = `${path}:${row.line}`;
    const tests = row.value.tests;
    if (!Array.isArray(tests) || tests.length === 0) {
      throw new TroupeError('input', `${where}: field "tests" must be a non-empty list of {"input": ..., "output": ...}`);
    }
    const cases = tests.map((t: unknown, i): StdioTestCase => {
      const c = t as Record<string, unknown> | null;
      if (!c || typeof c.input !== 'string' || typeof c.output !== 'string') {
        throw new TroupeError('input', `${where}: tests[${i}] must be {"input": string, "output": string}, got ${JSON.stringify(t).slice(0, 60)}`);
      }
      return { input: c.input, output: c.output };
    });
    const solution = stringField(path, row, 'solution', { optional: true });
    return {
      id: stringField(path, row, 'id', { optional: true }) ?? `line-${row.line}`,
      question: stringField(path, row, 'question')!,
      tests: cases,
      ...(solution === undefined ? {} : { solution }),
    };
  });
}
