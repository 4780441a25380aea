// npx tsx experiments/summarize-algorithms.ts OUT_ROOT [SVG_PATH]
// Reads what compare-algorithms.sh wrote (OUT_ROOT/seed-N/METHOD/metrics.jsonl) and prints one
// markdown table: per method, each seed's held-out success (base -> last evaluation), the mean
// and standard deviation of the final success over seeds, the mean change over the base, and
// the samples spent. Writes an SVG plot of held-out success vs RL step: per method the mean over
// seeds as a line, the lowest..highest seed as a band (the base is drawn at step 0).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderLineChart } from '../src/train/report/line-chart.js';
import { reportStyle } from '../src/train/report/report-style.js';

interface Rec { kind: string; step: number; success_rate?: number; samples?: number }
interface Run { seed: number; evals: Map<number, number>; samples: number }

const [root, svgPath] = process.argv.slice(2);
if (root === undefined) throw new Error('usage: summarize-algorithms.ts OUT_ROOT [SVG_PATH]');
const METHODS = ['at-grpo', 'magrpo', 'single-grpo'];
const LABELS: Record<string, string> = { 'at-grpo': 'AT-GRPO (team)', magrpo: 'MAGRPO (team)', 'single-grpo': 'GRPO (single agent)' };

function readRun(dir: string, seed: number): Run | undefined {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return undefined;
  const records = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec);
  // The base evaluation (step -1) is plotted at step 0; evaluation at step s is after s+1 updates.
  const evals = new Map(records.filter((r) => r.kind === 'eval' && r.success_rate !== undefined).map((r) => [r.step + 1, r.success_rate!] as const));
  const samples = records.filter((r) => r.kind === 'train').reduce((n, r) => n + (r.samples ?? 0), 0);
  return { seed, evals, samples };
}

const seeds = readdirSync(root).map((d) => /^seed-(\d+)$/.exec(d)).filter((m) => m !== null).map((m) => Number(m[1])).sort((a, b) => a - b);
const started = new Map(METHODS.map((m) => [m, seeds.map((s) => readRun(join(root, `seed-${s}`, m), s)).filter((r): r is Run => r !== undefined && r.evals.size > 1)]));
const lastStep = (r: Run) => Math.max(...r.evals.keys());
// A run stopped before the others' last evaluation is shown in its cell but left out of the
// mean, the spread and the plot (its "final" would be an earlier step).
const budget = Math.max(...[...started.values()].flat().map(lastStep));
const runs = new Map([...started].map(([m, rs]) => [m, rs.filter((r) => lastStep(r) === budget)]));

const pct = (x: number) => (100 * x).toFixed(1);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => (xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1)));

console.log(`| method | ${seeds.map((s) => `seed ${s}: base -> final`).join(' | ')} | final, mean ± sd | mean change | samples per run |`);
console.log(`|---|${seeds.map(() => '---').join('|')}|---|---|---|`);
for (const method of METHODS) {
  const done = runs.get(method)!;
  const cells = seeds.map((s) => {
    const run = started.get(method)!.find((r) => r.seed === s);
    if (run === undefined) return 'not run';
    const cell = `${pct(run.evals.get(0) ?? NaN)} -> **${pct(run.evals.get(lastStep(run))!)}**`;
    return lastStep(run) === budget ? cell : `${cell} (stopped after ${lastStep(run)} steps)`;
  });
  if (done.length === 0) {
    console.log(`| ${LABELS[method]} | ${cells.join(' | ')} | - | - | - |`);
    continue;
  }
  const finals = done.map((r) => r.evals.get(lastStep(r))!);
  const changes = done.map((r) => r.evals.get(lastStep(r))! - (r.evals.get(0) ?? NaN));
  const change = mean(changes);
  console.log(`| ${LABELS[method]} | ${cells.join(' | ')} | ${pct(mean(finals))}% ± ${pct(sd(finals))} (${done.length} seed${done.length === 1 ? '' : 's'}) | ${change >= 0 ? '+' : ''}${pct(change)} points | ${Math.round(mean(done.map((r) => r.samples)) / 1000)}k |`);
}

if (svgPath !== undefined) {
  const series = METHODS.filter((m) => runs.get(m)!.length > 0).map((method) => {
    const done = runs.get(method)!;
    // Only steps every seed evaluated, so the mean never mixes seeds in and out.
    const steps = [...done[0]!.evals.keys()].filter((s) => done.every((r) => r.evals.has(s))).sort((a, b) => a - b);
    const at = (s: number) => done.map((r) => r.evals.get(s)!);
    return {
      name: `${LABELS[method]}, ${done.length} seed${done.length === 1 ? '' : 's'}`,
      points: steps.map((s) => [s, mean(at(s))] as const),
      intervals: steps.map((s) => [s, Math.min(...at(s)), Math.max(...at(s))] as const),
      style: 'line+markers' as const,
    };
  });
  const chart = renderLineChart({
    id: 'compare-algorithms',
    title: 'Held-out success vs RL step',
    xLabel: 'RL steps done (0 = the base)',
    yLabel: 'held-out success (mean over seeds; band: lowest..highest seed)',
    series,
    percent: true,
    yInclude: [0, 1],
  });
  // A standalone file needs the report's chart styles and a white background.
  const styled = chart.replace('>', `><style>${reportStyle}</style><rect width="100%" height="100%" fill="#fff"/>`);
  writeFileSync(svgPath, `${styled}\n`);
  console.error(`wrote ${svgPath}`);
}
