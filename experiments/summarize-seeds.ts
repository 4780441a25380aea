// npx tsx experiments/summarize-seeds.ts runs/exp-plan-path-s1 runs/exp-plan-path-s2 runs/exp-plan-path-s3
// One markdown table over several seeds of compare-methods.sh (one OUT_DIR per seed): per
// variant, the held-out success of the base and after RL for each seed, then the mean change
// (after - base) and how many seeds improved on their base by more than the base's 95% interval.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface Eval { step: number; success_rate: number; ci_low: number; ci_high: number }

function evals(runDir: string): Eval[] {
  const path = join(runDir, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Eval & { kind: string }).filter((r) => r.kind === 'eval');
}

const pct = (x: number) => `${(100 * x).toFixed(1)}`;
const seedDirs = process.argv.slice(2);
const variants = [...new Set(seedDirs.flatMap((d) => (existsSync(d) ? readdirSync(d) : []).filter((v) => !v.endsWith('.tmp') && existsSync(join(d, v, 'metrics.jsonl')))))].sort();
console.log(`| variant | ${seedDirs.map((d) => `${basename(d)}: base -> after RL`).join(' | ')} | mean change | seeds above the base's interval |`);
console.log(`|---|${seedDirs.map(() => '---').join('|')}|---|---|`);
for (const variant of variants) {
  const cells: string[] = [];
  const changes: number[] = [];
  let above = 0;
  for (const dir of seedDirs) {
    const all = evals(join(dir, variant));
    const base = all.find((r) => r.step === -1);
    const last = all.filter((r) => r.step >= 0).at(-1);
    if (base === undefined || last === undefined) {
      cells.push('-');
      continue;
    }
    cells.push(`${pct(base.success_rate)} -> **${pct(last.success_rate)}**`);
    changes.push(last.success_rate - base.success_rate);
    if (last.success_rate > base.ci_high) above++;
  }
  const mean = changes.length === 0 ? '-' : `${changes.reduce((a, b) => a + b, 0) / changes.length >= 0 ? '+' : ''}${pct(changes.reduce((a, b) => a + b, 0) / changes.length)} points`;
  console.log(`| ${variant} | ${cells.join(' | ')} | ${mean} | ${above} of ${changes.length} |`);
}
