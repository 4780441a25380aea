// npx tsx experiments/summarize-runs.ts runs/exp-plan-path/*
// One markdown table row per run folder: the base and final held-out evals (95% Wilson
// intervals), the rollout budget actually spent (samples, episodes), and the wall time.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface Rec { kind: string; step: number; success_rate?: number; ci_low?: number; ci_high?: number; n?: number; mean_turns?: number; samples?: number; episodes?: number; elapsed_s?: number }

const pct = (x: number | undefined) => (x === undefined ? '-' : `${(100 * x).toFixed(1)}`);
const evalCell = (r: Rec | undefined) => (r === undefined ? '-' : `${pct(r.success_rate)}% [${pct(r.ci_low)}, ${pct(r.ci_high)}] (n=${r.n}, ${r.mean_turns?.toFixed(1)} turns)`);

console.log('| run | base eval | final eval | RL steps | samples | episodes | wall time |');
console.log('|---|---|---|---|---|---|---|');
for (const dir of process.argv.slice(2)) {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) continue;
  const records = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec);
  const evals = records.filter((r) => r.kind === 'eval');
  const train = records.filter((r) => r.kind === 'train');
  const sum = (f: (r: Rec) => number | undefined) => train.reduce((n, r) => n + (f(r) ?? 0), 0);
  const wall = Math.max(...records.map((r) => r.elapsed_s ?? 0));
  console.log(`| ${basename(dir)} | ${evalCell(evals.find((r) => r.step === -1))} | ${evalCell(evals.filter((r) => r.step >= 0).at(-1))} | ${train.length} | ${sum((r) => r.samples)} | ${sum((r) => r.episodes)} | ${(wall / 60).toFixed(1)} min |`);
}
