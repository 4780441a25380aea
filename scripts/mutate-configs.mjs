// The config property test at full size: N mutated example configs (default 1000), each probed
// (dist/src/train/config-probe.js: load, checks, one scripted episode) in a worker thread with a
// time limit, so a hang is counted instead of stopping the run. Needs `npm run build` first.
//
//   node scripts/mutate-configs.mjs [N] [--limit-s 30]
//
// Prints the outcome counts and every crash or hang; exits 1 when there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import YAML from 'yaml';
import { mutateConfig } from '../dist/src/config/mutate-config.js';

const args = process.argv.slice(2);
const limitAt = args.indexOf('--limit-s');
const limitMs = 1000 * (limitAt >= 0 ? Number(args.splice(limitAt, 2)[1]) : 30);
const total = Number(args[0] ?? 1000);
const files = readdirSync('examples').filter((f) => f.endsWith('.yaml')).sort();
const originals = files.map((f) => YAML.parse(readFileSync(join('examples', f), 'utf8')));

const workerCode = `
  import { parentPort } from 'node:worker_threads';
  const { probeConfig } = await import(${JSON.stringify(new URL('../dist/src/train/config-probe.js', import.meta.url).href)});
  parentPort.on('message', async ({ config, source }) => parentPort.postMessage(await probeConfig(config, source)));
`;
let worker;
const fresh = () => new Worker(new URL(`data:text/javascript,${encodeURIComponent(workerCode)}`));

function probe(config, source) {
  worker ??= fresh();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      worker.terminate();
      worker = undefined;
      resolve({ kind: 'hang' });
    }, limitMs);
    worker.once('message', (outcome) => {
      clearTimeout(timer);
      resolve(outcome);
    });
    worker.postMessage({ config, source });
  });
}

const counts = { starts: 0, 'error-line': 0, crash: 0, hang: 0 };
const bad = [];
let slowest = { ms: 0, what: '' };
for (let n = 0; n < total; n++) {
  const i = n % files.length;
  const mutant = mutateConfig(originals[i], n);
  const started = performance.now();
  const outcome = await probe(mutant.config, files[i]);
  const ms = performance.now() - started;
  if (ms > slowest.ms) slowest = { ms, what: `${files[i]}: ${mutant.change}` };
  counts[outcome.kind]++;
  if (outcome.kind === 'crash' || outcome.kind === 'hang') bad.push(`${outcome.kind} ${files[i]}: ${mutant.change}\n${outcome.detail ?? ''}`);
}
worker?.terminate();
console.log(`${total} mutated configs: ${counts.starts} start, ${counts['error-line']} error lines, ${counts.crash} stack traces, ${counts.hang} hangs (limit ${limitMs / 1000} s); slowest ${(slowest.ms / 1000).toFixed(1)} s (${slowest.what})`);
for (const line of bad) console.log(line);
process.exit(bad.length > 0 ? 1 : 0);
