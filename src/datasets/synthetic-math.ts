/**
 * Built-in arithmetic word problems with exact answers (integers and fractions), so the math
 * task runs with no download. Each template can also be solved back from its question text:
 * that is what the scripted player does (it sees only the prompt, like a model).
 */
import type { Split } from '../envs/types.js';
import { Rng } from '../util/rng.js';
import type { MathProblem } from './math-problem.js';
import { drawForSplit } from './split-by-hash.js';

const NAMES = ['Ann', 'Ben', 'Chen', 'Dara', 'Eli', 'Fay', 'Gus', 'Hana'];
const THINGS = ['marbles', 'stamps', 'shells', 'cards', 'coins'];

function gcd(a: number, b: number): number {
  return b === 0 ? Math.abs(a) : gcd(b, a % b);
}

/** "3/2", or "4" when the fraction is whole. */
export function fractionText(num: number, den: number): string {
  const g = gcd(num, den);
  return den / g === 1 ? String(num / g) : `${num / g}/${den / g}`;
}

interface MathTemplate {
  draw(rng: Rng): { question: string; answer: string };
  /** Reads the numbers back from a question of this template. */
  readonly pattern: RegExp;
  solve(numbers: number[]): string;
}

const templates: readonly MathTemplate[] = [
  {
    draw(rng) {
      const [name, thing] = [rng.pick(NAMES), rng.pick(THINGS)];
      const a = 10 + rng.int(40);
      const b = 1 + rng.int(20);
      const c = 1 + rng.int(a);
      return {
        question: `${name} has ${a} ${thing}. ${name} finds ${b} more and then gives away ${c}. How many ${thing} does ${name} have now?`,
        answer: String(a + b - c),
      };
    },
    pattern: /has (\d+) \w+\. \w+ finds (\d+) more and then gives away (\d+)\./,
    solve: ([a, b, c]) => String(a! + b! - c!),
  },
  {
    draw(rng) {
      const n = 2 + rng.int(11);
      const m = 2 + rng.int(14);
      return { question: `A shelf holds ${n} boxes with ${m} pencils in each box. How many pencils are on the shelf?`, answer: String(n * m) };
    },
    pattern: /holds (\d+) boxes with (\d+) pencils/,
    solve: ([n, m]) => String(n! * m!),
  },
  {
    draw(rng) {
      const n = 2 + rng.int(8);
      const q = 2 + rng.int(12);
      return { question: `${n * q} cookies are shared equally among ${n} children. How many cookies does each child get?`, answer: String(q) };
    },
    pattern: /(\d+) cookies are shared equally among (\d+) children/,
    solve: ([t, n]) => String(t! / n!),
  },
  {
    draw(rng) {
      const b = 2 + rng.int(6);
      const a = 1 + rng.int(b - 1);
      const c = 2 + rng.int(7);
      return {
        question: `A recipe uses ${a}/${b} of a cup of sugar per batch. How many cups of sugar do ${c} batches use?`,
        answer: fractionText(a * c, b),
      };
    },
    pattern: /uses (\d+)\/(\d+) of a cup of sugar per batch\. How many cups of sugar do (\d+) batches/,
    solve: ([a, b, c]) => fractionText(a! * c!, b!),
  },
];

/** Problem `index` of the synthetic set for (seed, split): deterministic, splits disjoint. */
export function syntheticMathProblem(seed: number, split: Split, index: number): MathProblem {
  const rng = Rng.derive(seed, 'synthetic-math', split, index);
  const drawn = drawForSplit(rng, split, (r) => r.pick(templates).draw(r), (p) => p.question);
  return { id: `synthetic-math/${split}/${index}`, ...drawn };
}

/** The answer of a synthetic question read back from its text; undefined for other text. */
export function solveSyntheticMath(question: string): string | undefined {
  for (const t of templates) {
    const m = t.pattern.exec(question);
    if (m) return t.solve(m.slice(1).map(Number));
  }
  return undefined;
}
