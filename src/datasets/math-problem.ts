/**
 * Math problems with a final answer (the shape of MATH / GSM8K / AIME exports):
 *
 *   {"question": "What is 1/2 + 1/3?", "answer": "\\frac{5}{6}"}
 *
 * `answer` may be a string or a number; `id` is optional.
 */
import { TroupeError } from '../util/errors.js';
import { readJsonl, stringField } from './read-jsonl.js';

export interface MathProblem {
  readonly id: string;
  readonly question: string;
  /** The reference answer as written (checked with answer-check.ts, so any equivalent form). */
  readonly answer: string;
}

export function readMathProblems(path: string): MathProblem[] {
  return readJsonl(path).map((row) => {
    const answer = row.value.answer;
    if (typeof answer !== 'string' && typeof answer !== 'number') {
      const got = answer === undefined ? 'it is missing' : `got ${JSON.stringify(answer).slice(0, 40)}`;
      throw new TroupeError('input', `${path}:${row.line}: field "answer" must be a string or a number, ${got}`);
    }
    return {
      id: stringField(path, row, 'id', { optional: true }) ?? `line-${row.line}`,
      question: stringField(path, row, 'question')!,
      answer: String(answer),
    };
  });
}
