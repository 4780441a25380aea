/**
 * Model-free players of coop-code; both read only the prompt.
 * - scripted: recognises the built-in synthetic problems; with probability `skill` each
 *   agent writes its part of the known two-function split, otherwise one of the classic
 *   mistakes the reward must catch (no return, thin wrapper, discarded aux result, syntax
 *   error). Unknown problems get `return None`.
 * - reference: finds the problem by the prompt's task id line. agent: the dataset's
 *   `canonical_solution` verbatim (HumanEval completion). main: the problem's prompt plus its
 *   canonical solution (a complete function); aux: a trivial helper `def aux(x): return x`
 *   (documented fallback: datasets have no reference helper). So the reference pair earns
 *   structure, syntax and full tests, but no cooperation credit.
 */
import type { HumanEvalProblem } from '../../datasets/humaneval-problem.js';
import type { ProblemSet } from '../../datasets/problem-set.js';
import { recogniseFunctionPrompt } from '../../datasets/synthetic-functions.js';
import { readTaskIdLine } from '../code/task-id.js';
import type { ReferenceResponder, ScriptedResponder } from '../types.js';

const isCompact = (prompt: string) => /\n(aux|main|agent):$/.test(prompt);
const wrap = (code: string, prompt: string) => (isCompact(prompt) ? code : `\`\`\`python\n${code}\n\`\`\`\n`);

export const scriptedCoopPlayer: ScriptedResponder = ({ role, prompt, skill, rng }) => {
  const known = recogniseFunctionPrompt(prompt);
  const good = rng.next() < skill;
  if (role === 'agent') return known && good ? known.template.body(known.k).trimEnd() : '    return None';
  if (!known) return wrap(role === 'aux' ? 'def aux(x): return x' : 'def f(*args): return None', prompt);
  const { template, k } = known;
  const entry = template.entryPoint;
  if (role === 'aux') return wrap(good ? template.aux(k) : rng.pick(['def aux(v): pass', 'def aux(v): return v']), prompt);
  if (good) return wrap(template.main(k), prompt);
  return wrap(
    rng.pick([
      `def ${entry}(*args): return aux(*args)`,
      `def ${entry}(*args): aux(*args); return None`,
      `def ${entry}(*args): return (`,
    ]),
    prompt,
  );
};

export function coopReferencePlayer(problems: ProblemSet<HumanEvalProblem>): ReferenceResponder {
  return ({ role, prompt }) => {
    const id = readTaskIdLine('coop-code', prompt);
    if (!id) return '';
    const p = problems.get(id.index, id.split);
    const canonical = p.canonicalSolution ?? '    return None\n';
    if (role === 'agent') return canonical;
    if (role === 'aux') return wrap('def aux(x):\n    return x', prompt);
    return wrap(`${p.prompt}${canonical}`.trimEnd(), prompt);
  };
}
