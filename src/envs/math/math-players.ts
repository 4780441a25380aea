/**
 * Model-free players of the `math` task; both read only the prompt.
 * - scripted: solves the built-in synthetic word problems from their text; with probability
 *   `skill` it answers right, otherwise off by one. Unknown problems get 0.
 * - reference: finds the problem by the prompt's task id line; tool prints the dataset's
 *   answer, reasoning (or agent) writes it in \boxed{}.
 */
import type { MathProblem } from '../../datasets/math-problem.js';
import type { ProblemSet } from '../../datasets/problem-set.js';
import { solveSyntheticMath } from '../../datasets/synthetic-math.js';
import { readTaskIdLine } from '../code/task-id.js';
import type { ReferenceResponder, ScriptedResponder } from '../types.js';

const isCompact = (prompt: string) => /\n(tool|reasoning|agent):$/.test(prompt);

function answerAs(role: string, answer: string, prompt: string): string {
  if (role === 'tool') {
    const program = `print(${JSON.stringify(answer)})`;
    return isCompact(prompt) ? program : `\`\`\`python\n${program}\n\`\`\`\n`;
  }
  return isCompact(prompt) ? `\\boxed{${answer}}` : `Working it out step by step gives the result.\nThe final answer is \\boxed{${answer}}.`;
}

export const scriptedMathPlayer: ScriptedResponder = ({ role, prompt, skill, rng }) => {
  const solved = solveSyntheticMath(prompt) ?? '0';
  const wrong = /^-?\d+$/.test(solved) ? String(Number(solved) + 1 + rng.int(3)) : `${solved}1`;
  return answerAs(role, rng.next() < skill ? solved : wrong, prompt);
};

export function mathReferencePlayer(problems: ProblemSet<MathProblem>): ReferenceResponder {
  return ({ role, prompt }) => {
    const id = readTaskIdLine('math', prompt);
    return id ? answerAs(role, problems.get(id.index, id.split).answer, prompt) : '';
  };
}
