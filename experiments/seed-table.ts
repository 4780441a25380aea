// npx tsx experiments/seed-table.ts runs/seeds/seed-1 runs/seeds/seed-2 ...
// One markdown row per run folder of the same config trained on different seeds: the seed,
// the held-out success of the base and after every evaluation (the last one with its 95%
// Wilson interval), the last eval's turns per episode, and the wall time the run recorded
// (a run that reused a cached base/ did not pay the warm start again; the column says so).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

interface Rec { kind: string; step: number; success_rate?: number; ci_low?: number; ci_high?: number; mean_turns?: number; elapsed_s?: number }

const pct = (x: number | undefined) => (x === undefined ? '-' : `${(100 * x).toFixed(1)}`);
const rows: { seed: number; evals: Rec[]; tail: string[] }[] = [];
for (const dir of process.argv.slice(2)) {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) continue;
  const records = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec);
  const evals = records.filter((r) => r.kind === 'eval').sort((a, b) => a.step - b.step);
  const last = evals.at(-1);
  if (last === undefined) continue;
  const warmStarted = records.some((r) => r.kind === 'warm-start');
  const wall = Math.max(...records.map((r) => r.elapsed_s ?? 0));
  const seed = (parse(readFileSync(join(dir, 'config.yaml'), 'utf8')) as { seed: number }).seed;
  const tail = [(last.mean_turns ?? 0).toFixed(1), `${(wall / 60).toFixed(1)} min${warmStarted ? '' : ' (cached base)'}`];
  rows.push({ seed, evals, tail });
}
// Columns: every eval step any run reached; a run that stopped early shows '-' for the rest.
const steps = [...new Set(rows.flatMap((r) => r.evals.map((e) => e.step)))].sort((a, b) => a - b);
const head = steps.map((s) => (s < 0 ? 'base' : `step ${s}`));
console.log(`| seed | ${head.join(' | ')} | turns (last eval) | wall time |`);
console.log(`|---|${head.map(() => '---').join('|')}|---|---|`);
for (const { seed, evals, tail } of rows.sort((a, b) => a.seed - b.seed)) {
  const last = evals.at(-1)!;
  const cells = steps.map((s) => {
    const r = evals.find((e) => e.step === s);
    if (r === undefined) return '-';
    return r === last ? `**${pct(r.success_rate)}%** [${pct(r.ci_low)}, ${pct(r.ci_high)}]` : `${pct(r.success_rate)}%`;
  });
  console.log(`| ${seed} | ${[...cells, ...tail].join(' | ')} |`);
}
