// npx tsx experiments/turns-over-training.ts runs/plan-path-train [BUCKET_STEPS]
// Experiment 2 (third part): turns per episode and per-role rewards over training,
// averaged over buckets of RL steps (train records), next to the held-out evals.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Train { kind: 'train'; step: number; success_rate: number | null; mean_turns: number | null; roles: Record<string, { reward: number | null }> }
interface Eval { kind: 'eval'; step: number; success_rate: number; mean_turns: number }

const [dir, bucketArg] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: turns-over-training.ts RUN_DIR [BUCKET_STEPS]');
const bucket = Number(bucketArg ?? 25);
const records = readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Train | Eval | { kind: 'warm-start' });
const train = records.filter((r): r is Train => r.kind === 'train');
const roles = Object.keys(train[0]?.roles ?? {});
const mean = (xs: (number | null)[]) => { const v = xs.filter((x): x is number => x !== null); return v.length === 0 ? NaN : v.reduce((a, b) => a + b, 0) / v.length; };
console.log(`| steps | train success (K-branch tree) | turns per episode | ${roles.map((r) => `${r} reward`).join(' | ')} |`);
console.log(`|---|---|---|${roles.map(() => '---|').join('')}`);
for (let start = 0; start < train.length; start += bucket) {
  const chunk = train.slice(start, start + bucket);
  console.log(`| ${chunk[0]!.step}-${chunk.at(-1)!.step} | ${(100 * mean(chunk.map((r) => r.success_rate))).toFixed(0)}% | ${mean(chunk.map((r) => r.mean_turns)).toFixed(2)} | ${roles.map((role) => mean(chunk.map((r) => r.roles[role]?.reward ?? null)).toFixed(3)).join(' | ')} |`);
}
console.log('\n| eval after step | held-out success | turns per episode |\n|---|---|---|');
for (const e of records.filter((r): r is Eval => r.kind === 'eval')) console.log(`| ${e.step} | ${(100 * e.success_rate).toFixed(1)}% | ${e.mean_turns.toFixed(2)} |`);
