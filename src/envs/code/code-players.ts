/**
 * The model-free players of the `code` task. Both read only the prompt, like a model.
 * - scripted: recognises the built-in synthetic problems from their text; with probability
 *   `skill` the coder writes the right program (else a plausible wrong one) and the tester
 *   writes correct cases (else one case with a wrong expected output). Unknown problems get a
 *   program that prints nothing and a trivial case.
 * - reference: finds the problem by the prompt's task id line and answers with the dataset's
 *   `solution` (coder) and the dataset's own hidden tests (tester; the documented fallback,
 *   since a dataset has no "reference tester"). Without a `solution` the coder answers
 *   `print()`, which fails, so missing references show up as failures, not as passes.
 */
import type { ProblemSet } from '../../datasets/problem-set.js';
import type { StdioProblem } from '../../datasets/stdio-problem.js';
import { recogniseStdioQuestion } from '../../datasets/synthetic-stdio.js';
import type { ReferenceResponder, ScriptedResponder } from '../types.js';
import { formatCompactCases } from './parse-test-cases.js';
import { readTaskIdLine } from './task-id.js';

const isCompact = (prompt: string) => /\n[CT]:$/.test(prompt);

function wrapCode(code: string, prompt: string): string {
  return isCompact(prompt) ? code.trimEnd() : `\`\`\`python\n${code.trimEnd()}\n\`\`\`\n`;
}

function wrapCases(cases: ReadonlyArray<{ input: string; output: string }>, prompt: string, forceJson = false): string {
  if (isCompact(prompt) && !forceJson) return formatCompactCases(cases);
  const json = JSON.stringify(cases);
  return isCompact(prompt) ? json : `\`\`\`json\n${json}\n\`\`\`\n`;
}

export const scriptedCodePlayer: ScriptedResponder = ({ role, prompt, skill, rng }) => {
  const known = recogniseStdioQuestion(prompt);
  if (role === 'tester') {
    if (!known) return wrapCases([{ input: '0\n', output: '0' }], prompt);
    const inputs = [...new Set([known.template.input(rng), known.template.input(rng)])];
    const cases = inputs.map((input) => ({ input, output: known.template.run(known.k, input) }));
    if (rng.next() >= skill) cases[0] = { input: cases[0]!.input, output: `${cases[0]!.output.trim()}0\n` };
    return wrapCases(cases, prompt);
  }
  if (!known) return wrapCode('print()', prompt);
  return wrapCode(rng.next() < skill ? known.template.solution(known.k) : known.template.wrong(known.k), prompt);
};

export function codeReferencePlayer(problems: ProblemSet<StdioProblem>): ReferenceResponder {
  return ({ role, prompt }) => {
    const id = readTaskIdLine('code', prompt);
    if (!id) return '';
    const p = problems.get(id.index, id.split);
    if (role === 'tester') return wrapCases(p.tests, prompt, true);
    return wrapCode(p.solution ?? 'print()', prompt);
  };
}
