#!/usr/bin/env node
// node scripts/compare-metrics.mjs RUN_A RUN_B [--ignore key,key]
// Compares two runs' metrics.jsonl record by record, leaving out the timing fields (which no
// two runs share) and any --ignore keys; exits 1 and names the first difference if they differ.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const at = args.indexOf('--ignore');
const ignored = new Set(['elapsed_s', 'rollout_s', 'update_s', 'samples_per_s', 'tokens_per_s', ...(at >= 0 ? args[at + 1].split(',') : [])]);
const [a, b] = args.filter((_, i) => at < 0 || (i !== at && i !== at + 1));
if (!a || !b) {
  console.error('usage: node scripts/compare-metrics.mjs RUN_A RUN_B [--ignore key,key]');
  process.exit(2);
}
const strip = (v) => (Array.isArray(v) ? v.map(strip) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([k]) => !ignored.has(k)).map(([k, x]) => [k, strip(x)])) : v);
const read = (dir) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.stringify(strip(JSON.parse(l))));
const [ra, rb] = [read(a), read(b)];
for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
  if (ra[i] !== rb[i]) {
    console.error(`record ${i + 1} differs:\n  ${a}: ${ra[i]}\n  ${b}: ${rb[i]}`);
    process.exit(1);
  }
}
console.log(`identical: ${ra.length} records (timing fields left out)`);
