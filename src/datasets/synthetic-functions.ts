/**
 * Built-in function-writing problems in HumanEval format (prompt, test with `check`, entry
 * point, canonical solution), so the coop-code task runs with no download. Every template
 * also knows a two-function split (a helper `aux` and the entry point calling it) and can be
 * recognised from its prompt: the scripted player writes code from the prompt alone.
 * Solutions are one line each, so they survive the compact format's newline stop.
 */
import type { Split } from '../envs/types.js';
import { Rng } from '../util/rng.js';
import type { HumanEvalProblem } from './humaneval-problem.js';
import { pythonLiteral } from './python-literal.js';
import { drawForSplit } from './split-by-hash.js';

export interface FunctionTemplate {
  readonly entryPoint: string;
  readonly signature: string;
  describe(k: number): string;
  /** Reads k back from a prompt of this template. */
  readonly pattern: RegExp;
  /** The canonical body (one indented line, HumanEval completion style). */
  body(k: number): string;
  /** The two-function split: `aux` and the entry point calling it (one line each). */
  aux(k: number): string;
  main(k: number): string;
  inputs(rng: Rng): unknown[][];
  run(k: number, args: unknown[]): unknown;
}

const ints = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.int(21) - 8);

export const functionTemplates: readonly FunctionTemplate[] = [
  {
    entryPoint: 'scale_all',
    signature: 'def scale_all(xs: list) -> list:',
    describe: (k) => `Return a new list with every element of xs multiplied by ${k}.`,
    pattern: /every element of xs multiplied by (\d+)/,
    body: (k) => `    return [v * ${k} for v in xs]\n`,
    aux: (k) => `def aux(v): return v * ${k}`,
    main: () => 'def scale_all(xs): return [aux(v) for v in xs]',
    inputs: (rng) => [[ints(rng, 3)], [[]], [ints(rng, 5)]],
    run: (k, [xs]) => (xs as number[]).map((v) => v * k),
  },
  {
    entryPoint: 'count_above',
    signature: 'def count_above(xs: list) -> int:',
    describe: (k) => `Return how many elements of xs are greater than ${k}.`,
    pattern: /elements of xs are greater than (\d+)/,
    body: (k) => `    return sum(1 for v in xs if v > ${k})\n`,
    aux: (k) => `def aux(v): return v > ${k}`,
    main: () => 'def count_above(xs): return sum(1 for v in xs if aux(v))',
    inputs: (rng) => [[ints(rng, 4).map((v) => v + 4)], [[]], [ints(rng, 6).map((v) => v + 3)]],
    run: (k, [xs]) => (xs as number[]).filter((v) => v > k).length,
  },
  {
    entryPoint: 'shout',
    signature: 'def shout(s: str) -> str:',
    describe: (k) => `Return s in upper case followed by ${k} exclamation marks.`,
    pattern: /upper case followed by (\d+) exclamation marks/,
    body: (k) => `    return s.upper() + '!' * ${k}\n`,
    aux: () => "def aux(n): return '!' * n",
    main: (k) => `def shout(s): return s.upper() + aux(${k})`,
    inputs: (rng) => [[rng.pick(['hi', 'go', 'abc'])], [''], [rng.pick(['team work', 'ok then'])]],
    run: (k, [s]) => (s as string).toUpperCase() + '!'.repeat(k),
  },
  {
    entryPoint: 'squares_plus',
    signature: 'def squares_plus(xs: list) -> int:',
    describe: (k) => `Return the sum of the squares of the elements of xs, plus ${k}.`,
    pattern: /squares of the elements of xs, plus (\d+)/,
    body: (k) => `    return sum(v * v for v in xs) + ${k}\n`,
    aux: () => 'def aux(v): return v * v',
    main: (k) => `def squares_plus(xs): return sum(aux(v) for v in xs) + ${k}`,
    inputs: (rng) => [[ints(rng, 3)], [[]], [ints(rng, 4)]],
    run: (k, [xs]) => (xs as number[]).reduce((s, v) => s + v * v, 0) + k,
  },
];

function build(template: FunctionTemplate, k: number, rng: Rng): Omit<HumanEvalProblem, 'taskId'> {
  const inputs = template.inputs(rng);
  const example = inputs[0]!;
  const call = `${template.entryPoint}(${example.map(pythonLiteral).join(', ')})`;
  const prompt =
    `${template.signature}\n    """${template.describe(k)}\n` +
    `    >>> ${call}\n    ${pythonLiteral(template.run(k, example))}\n    """\n`;
  const asserts = inputs.map(
    (args) => `    assert candidate(${args.map(pythonLiteral).join(', ')}) == ${pythonLiteral(template.run(k, args))}\n`,
  );
  return {
    prompt,
    test: `\n\ndef check(candidate):\n${asserts.join('')}\n`,
    entryPoint: template.entryPoint,
    canonicalSolution: template.body(k),
  };
}

/** Problem `index` of the synthetic set for (seed, split): deterministic, splits disjoint. */
export function syntheticFunctionProblem(seed: number, split: Split, index: number): HumanEvalProblem {
  const rng = Rng.derive(seed, 'synthetic-functions', split, index);
  const drawn = drawForSplit(
    rng,
    split,
    (r) => build(r.pick(functionTemplates), 2 + r.int(8), r),
    (p) => p.prompt + p.test,
  );
  return { taskId: `synthetic-fn/${split}/${index}`, ...drawn };
}

/** The template and k of a synthetic prompt (for the scripted player); undefined otherwise. */
export function recogniseFunctionPrompt(prompt: string): { template: FunctionTemplate; k: number } | undefined {
  for (const template of functionTemplates) {
    const m = template.pattern.exec(prompt);
    if (m) return { template, k: Number(m[1]) };
  }
  return undefined;
}
