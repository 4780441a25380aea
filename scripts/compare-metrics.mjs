#!/usr/bin/env node
// node scripts/compare-metrics.mjs RUN_A RUN_B [--ignore key,key] [--files]
// Compares two runs' metrics.jsonl record by record, leaving out the timing fields (which no
// two runs share: elapsed_s, rollout_s and every other key ending in _s, i.e. seconds and
// rates per second) and any --ignore keys; exits 1 and names the first difference if they
// differ. --files also compares, byte for byte, every file under base/, rollouts/ and
// checkpoints/ (warm-start weights, sampled rollouts, saved weights and optimizer state).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const args = process.argv.slice(2);
const at = args.indexOf('--ignore');
const files = args.includes('--files');
const ignored = new Set(at >= 0 ? args[at + 1].split(',') : []);
const [a, b] = args.filter((arg, i) => arg !== '--files' && (at < 0 || (i !== at && i !== at + 1)));
if (!a || !b) {
  console.error('usage: node scripts/compare-metrics.mjs RUN_A RUN_B [--ignore key,key] [--files]');
  process.exit(2);
}
const timing = (key) => key.endsWith('_s') || ignored.has(key);
const strip = (v) => (Array.isArray(v) ? v.map(strip) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([k]) => !timing(k)).map(([k, x]) => [k, strip(x)])) : v);
const read = (dir) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.stringify(strip(JSON.parse(l))));
const differ = (message) => {
  console.error(message);
  process.exit(1);
};
const [ra, rb] = [read(a), read(b)];
for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
  if (ra[i] !== rb[i]) differ(`record ${i + 1} differs:\n  ${a}: ${ra[i]}\n  ${b}: ${rb[i]}`);
}
let compared = 0;
if (files) {
  const walk = (dir) => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
  const list = (run) => ['base', 'rollouts', 'checkpoints'].flatMap((sub) => { try { return walk(join(run, sub)); } catch { return []; } }).map((f) => relative(run, f)).sort();
  const [fa, fb] = [list(a), list(b)];
  if (fa.join('\n') !== fb.join('\n')) differ(`the runs wrote different files:\n  ${a}: ${fa.join(' ')}\n  ${b}: ${fb.join(' ')}`);
  for (const f of fa) if (!readFileSync(join(a, f)).equals(readFileSync(join(b, f)))) differ(`${f} differs between ${a} and ${b}`);
  compared = fa.length;
}
console.log(`identical: ${ra.length} records (timing fields left out)${files ? `, ${compared} files of base/, rollouts/, checkpoints/` : ''}`);
