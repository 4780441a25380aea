/**
 * Built-in stdin -> stdout problems with hidden tests and a one-line reference program, so the
 * code task runs with no download. Each template can be recognised from its question text
 * (the scripted player writes its program from the prompt alone).
 */
import type { Split } from '../envs/types.js';
import { Rng } from '../util/rng.js';
import type { StdioProblem } from './stdio-problem.js';
import { drawForSplit } from './split-by-hash.js';

export interface StdioTemplate {
  question(k: number): string;
  readonly pattern: RegExp;
  /** A one-line Python 3 program solving the problem. */
  solution(k: number): string;
  /** A plausible but wrong one-line program (for the scripted player's mistakes). */
  wrong(k: number): string;
  input(rng: Rng): string;
  /** The expected output for an input (newline-terminated). */
  run(k: number, input: string): string;
}

const WORDS = ['red', 'fox', 'blue', 'sky', 'tea', 'cup', 'sun', 'map'];

export const stdioTemplates: readonly StdioTemplate[] = [
  {
    question: (k) => `Read two integers a and b from one line. Print a * ${k} + b.`,
    pattern: /Print a \* (\d+) \+ b\./,
    solution: (k) => `a, b = map(int, input().split()); print(a * ${k} + b)`,
    wrong: (k) => `a, b = map(int, input().split()); print(a * ${k} - b)`,
    input: (rng) => `${rng.int(50) - 10} ${rng.int(50) + 1}\n`,
    run: (k, input) => {
      const [a, b] = input.trim().split(/\s+/).map(Number);
      return `${a! * k + b!}\n`;
    },
  },
  {
    question: (k) => `Read an integer n. Print ${k} times the sum 1 + 2 + ... + n.`,
    pattern: /Print (\d+) times the sum 1 \+ 2/,
    solution: (k) => `n = int(input()); print(n * (n + 1) // 2 * ${k})`,
    wrong: (k) => `n = int(input()); print(n * (n - 1) // 2 * ${k})`,
    input: (rng) => `${1 + rng.int(30)}\n`,
    run: (k, input) => {
      const n = Number(input.trim());
      return `${((n * (n + 1)) / 2) * k}\n`;
    },
  },
  {
    question: (k) => `Read one word. Print it with every letter repeated ${k} times.`,
    pattern: /every letter repeated (\d+) times/,
    solution: (k) => `print(''.join(c * ${k} for c in input().strip()))`,
    wrong: (k) => `print(input().strip() * ${k})`,
    input: (rng) => `${rng.pick(WORDS)}\n`,
    run: (k, input) => `${[...input.trim()].map((c) => c.repeat(k)).join('')}\n`,
  },
  {
    question: (k) => `Read a line of words. Print the first ${k} words in reverse order, separated by single spaces.`,
    pattern: /Print the first (\d+) words in reverse order/,
    solution: (k) => `print(' '.join(input().split()[:${k}][::-1]))`,
    wrong: () => `print(' '.join(input().split()[::-1]))`,
    input: (rng) => `${Array.from({ length: 6 }, () => rng.pick(WORDS)).join(' ')}\n`,
    run: (k, input) => `${input.trim().split(/\s+/).slice(0, k).reverse().join(' ')}\n`,
  },
];

/** Problem `index` of the synthetic set for (seed, split): deterministic, splits disjoint. */
export function syntheticStdioProblem(seed: number, split: Split, index: number): StdioProblem {
  const rng = Rng.derive(seed, 'synthetic-stdio', split, index);
  const drawn = drawForSplit(
    rng,
    split,
    (r) => {
      const template = r.pick(stdioTemplates);
      const k = 2 + r.int(4);
      const inputs = [...new Set(Array.from({ length: 3 }, () => template.input(r)))];
      return { question: template.question(k), tests: inputs.map((input) => ({ input, output: template.run(k, input) })), solution: template.solution(k) };
    },
    (p) => p.question + JSON.stringify(p.tests),
  );
  return { id: `synthetic-stdio/${split}/${index}`, ...drawn };
}

export function recogniseStdioQuestion(text: string): { template: StdioTemplate; k: number } | undefined {
  for (const template of stdioTemplates) {
    const m = template.pattern.exec(text);
    if (m) return { template, k: Number(m[1]) };
  }
  return undefined;
}
