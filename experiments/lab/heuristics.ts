// npx tsx experiments/lab/heuristics.ts — ceilings of simple local policies on Plan-Path
import { builtInTask } from '../../src/envs/task-catalog.js';
import { neighbor, rowOf, colOf } from '../../src/envs/grid/grid-shape.js';
import { Rng } from '../../src/util/rng.js';
const size = Number(process.argv[2] ?? 10);
const task = builtInTask('plan-path');
const opts = task.optionsSchema.parse({ size, wall_fraction: 0.22 });
const source = task.createSource(opts, 1) as any;
const N = 1000;
const lens: number[] = [];
const dirs = ['U', 'D', 'L', 'R'] as const;
function greedy(env: any, rng: Rng, steps: number, eps: number): boolean {
  const t = env.task; let pos = t.start;
  for (let i = 0; i < steps && pos !== t.goal; i++) {
    const open = dirs.filter((d) => { const n = neighbor(t.shape, pos, d); return n >= 0 && t.walls[n] === 0; });
    const md = (c: number) => Math.abs(rowOf(t.shape, c) - rowOf(t.shape, t.goal)) + Math.abs(colOf(t.shape, c) - colOf(t.shape, t.goal));
    const better = open.filter((d) => md(neighbor(t.shape, pos, d)) < md(pos));
    const pick = rng.next() < eps || better.length === 0 ? rng.pick(open) : rng.pick(better);
    pos = neighbor(t.shape, pos, pick);
  }
  return pos === t.goal;
}
const res: Record<string, number> = {};
for (let i = 0; i < N; i++) {
  const env = source.make(i, 'eval');
  lens.push(env.task.optimal);
  for (const steps of [12, 16, 20, 30]) for (const eps of [0, 0.2, 0.4]) {
    const k = `greedy-manhattan steps${steps} eps${eps}`;
    res[k] = (res[k] ?? 0) + (greedy(env, new Rng(i * 7 + steps), steps, eps) ? 1 : 0) / N;
  }
}
lens.sort((a, b) => a - b);
console.log('optimal length: mean', (lens.reduce((a, b) => a + b) / N).toFixed(2), 'p50', lens[N / 2], 'p90', lens[Math.floor(N * 0.9)], 'p99', lens[Math.floor(N * 0.99)], 'max', lens[N - 1]);
for (const [k, v] of Object.entries(res)) console.log(k, (100 * v).toFixed(1));
