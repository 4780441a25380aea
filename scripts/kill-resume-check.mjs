#!/usr/bin/env node
// Kill -9 an asynchronous training run at random moments, resume it, and check that nothing
// was lost or trained twice:
//
//   node scripts/kill-resume-check.mjs [--config examples/smoke.yaml] [--tries 10] [--s 1] [--seed 1] [--set key=value ...]
//
// First an uninterrupted run (the reference). Then, per try, a fresh run killed with SIGKILL at
// a random moment of its RL steps, and `--resume` until it exits 0. Each
// try must: finish; train as many groups as the reference (sum of off_policy.trained_groups);
// write no group id into two steps' rollouts; and end with the reference's metrics (timing
// fields aside). Needs dist/ (npx tsc -p tsconfig.json). Exits 1 on the first failed check.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: 'examples/smoke.yaml' },
    tries: { type: 'string', default: '10' },
    s: { type: 'string', default: '1' },
    seed: { type: 'string', default: '1' },
    set: { type: 'string', multiple: true, default: [] },
  },
});
const work = mkdtempSync(join(tmpdir(), 'troupe-kill-resume-'));
const sets = ['--set', `train.max_steps_off_policy=${values.s}`, '--set', 'train.checkpoint_every=1', '--set', 'train.samples_every=1', ...values.set.flatMap((s) => ['--set', s])];
const cli = (runDir, extra = []) => ['dist/src/cli/main.js', 'train', values.config, '--run-dir', runDir, ...sets, ...extra];

// A small deterministic generator for the kill moments (mulberry32), so a failing try can be rerun.
let state = Number(values.seed) >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

const timing = new Set(['elapsed_s', 'samples_per_s', 'tokens_per_s', 'rollout_s', 'update_s']);
const metrics = (dir) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l, (k, v) => (timing.has(k) ? undefined : v)));
const trainedGroups = (dir) => metrics(dir).filter((r) => r.kind === 'train').reduce((n, r) => n + (r.off_policy?.trained_groups ?? NaN), 0);
/** Groups per step file; a group id in two steps' files is a duplicate. */
function rolloutGroups(dir) {
  const seen = new Map();
  const duplicates = [];
  for (const file of readdirSync(join(dir, 'rollouts')).sort()) {
    const groups = new Set(readFileSync(join(dir, 'rollouts', file), 'utf8').trim().split('\n').map((l) => JSON.parse(l).group));
    for (const g of groups) {
      if (seen.has(g)) duplicates.push(`${g} in ${seen.get(g)} and ${file}`);
      seen.set(g, file);
    }
  }
  return { count: seen.size, duplicates };
}

const reference = join(work, 'reference');
const started = performance.now();
const ref = spawnSync(process.execPath, cli(reference), { encoding: 'utf8' });
if (ref.status !== 0) fail(`the reference run failed:\n${ref.stderr}`);
const duration = performance.now() - started;
const refGroups = trainedGroups(reference);
const steps = metrics(reference).filter((r) => r.kind === 'train').length;
const refRollouts = rolloutGroups(reference);
if (refRollouts.duplicates.length > 0) fail(`the reference run wrote a group twice: ${refRollouts.duplicates[0]}`);
console.log(`reference: ${(duration / 1000).toFixed(1)} s, ${refGroups} groups trained, ${refRollouts.count} distinct groups in its rollouts`);

for (let t = 1; t <= Number(values.tries); t++) {
  const runDir = join(work, `try-${t}`);
  // A random moment of the RL phase: once the run has written `after` train records, a random
  // 0-0.3 s later (mid-step: an update and a rollout in flight, or mid-checkpoint).
  const after = Math.floor(random() * steps);
  const delay = Math.round(random() * 300);
  const child = spawn(process.execPath, cli(runDir), { stdio: 'ignore' });
  let timer;
  const poll = setInterval(() => {
    const file = join(runDir, 'metrics.jsonl');
    const written = existsSync(file) ? (readFileSync(file, 'utf8').match(/"kind":"train"/g) ?? []).length : 0;
    if (written >= after && timer === undefined) timer = setTimeout(() => child.kill('SIGKILL'), delay);
  }, 50);
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(signal ?? c)));
  clearInterval(poll);
  clearTimeout(timer);
  const checkpoints = existsSync(join(runDir, 'checkpoints')) ? readdirSync(join(runDir, 'checkpoints')).filter((n) => /^step-\d+$/.test(n)) : [];
  const where = checkpoints.length === 0 ? 'before the first RL checkpoint' : `after the checkpoint of step ${Number(checkpoints.sort().at(-1).slice(5))}`;
  let resumes = 0;
  let last = code;
  while (last !== 0) {
    if (++resumes > 3) fail(`try ${t}: still not finished after 3 resumes`);
    const r = spawnSync(process.execPath, cli(runDir, existsSync(runDir) ? ['--resume'] : []), { encoding: 'utf8' });
    if (r.status !== 0) fail(`try ${t}: --resume exited ${r.status}:\n${r.stderr.split('\n').slice(-5).join('\n')}`);
    last = r.status;
  }
  const groups = trainedGroups(runDir);
  const rollouts = rolloutGroups(runDir);
  if (groups !== refGroups) fail(`try ${t}: ${groups} groups trained, the reference ${refGroups}`);
  if (rollouts.duplicates.length > 0) fail(`try ${t}: a group id in two steps' rollouts: ${rollouts.duplicates[0]}`);
  if (rollouts.count !== refRollouts.count) fail(`try ${t}: ${rollouts.count} distinct groups in the rollouts, the reference ${refRollouts.count}`);
  if (JSON.stringify(metrics(runDir)) !== JSON.stringify(metrics(reference))) fail(`try ${t}: the metrics differ from the reference's (timing fields aside)`);
  const moment = `${(delay / 1000).toFixed(2)} s after train record ${after}`;
  const killed = code === 'SIGKILL' ? `killed ${moment} (${where})` : `finished before the kill (${moment})`;
  console.log(`try ${t}: ${killed}, ${resumes} resume(s): ${groups} groups trained, no duplicates, metrics equal the reference's`);
}
console.log(`all ${values.tries} tries passed (runs in ${work})`);
