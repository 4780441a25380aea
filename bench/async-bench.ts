// Asynchronous training on a SIMULATED remote Tinker service: the default Plan-Path recipe
// (examples/plan-path-train.yaml, as LoRA on the service) trained with max_steps_off_policy
// s = 0, 1, 2, printing wall-clock per step, the share of it the trainer spends waiting on the
// service, and held-out success at the end.
//
// Run: npx tsx bench/async-bench.ts [--steps 20] [--seeds 1] [--s 0,1,2] [--latency-ms 50] [--sampler-thread]
//        [--us-per-token 50] [--decode-ms 40] [--eval-tasks 200] [--base FOLDER] [--set key=value ...]
//
// The service is `troupe serve --tinker --batch-sampling --simulate-latency-ms
// --simulate-us-per-token --simulate-decode-ms` in a child process (docs/distributed.md says
// what the simulation assumes). Without --base, the
// recipe's warm start is run once (embedded) and its base model served. --steps shortens the
// recipe (600 steps), cosine schedule included; the same steps and seeds for every s.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTraining } from '../src/train/run-training.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '20' },
    seeds: { type: 'string', default: '1' },
    s: { type: 'string', default: '0,1,2' },
    'latency-ms': { type: 'string', default: '50' },
    'us-per-token': { type: 'string', default: '50' },
    'decode-ms': { type: 'string', default: '40' },
    'eval-tasks': { type: 'string', default: '200' },
    base: { type: 'string' },
    'sampler-thread': { type: 'boolean', default: false },
    set: { type: 'string', multiple: true, default: [] },
  },
});
const recipe = 'examples/plan-path-train.yaml';
const work = mkdtempSync(join(tmpdir(), 'troupe-async-bench-'));
const list = (v: string) => v.split(',').map(Number);
const quiet = (snapshots?: { t: number; cpu: number }[]) => ({
  write: () => {
    snapshots?.push({ t: performance.now(), cpu: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6 });
    return true;
  },
});

async function warmBase(): Promise<string> {
  const runDir = join(work, 'warm');
  process.stderr.write(`warm start of ${recipe} (embedded) into ${runDir}\n`);
  await runTraining({ config: recipe, runDir, stream: quiet(), set: ['train.steps=0', 'train.eval_tasks=1'] });
  return join(runDir, 'base');
}

function startService(base: string): Promise<{ url: string; child: ChildProcess }> {
  const args = ['dist/src/cli/main.js', 'serve', '--tinker', '--no-hf-cache', '--model', `base=${base}`, '--port', '0', '--state-dir', join(work, 'state'), '--simulate-latency-ms', values['latency-ms']!, '--simulate-us-per-token', values['us-per-token']!, '--simulate-decode-ms', values['decode-ms']!, '--batch-sampling', ...(values['sampler-thread'] ? ['--sampler-thread'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /troupe serve --tinker: (http:\/\/\S+) /.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.on('exit', (code) => reject(new Error(`troupe serve --tinker exited with ${code} before listening (is dist/ built? npx tsc -p tsconfig.json)`)));
  });
}

interface Row { s: number; seed: number; perStep: number; wait: number; success: number | null; maxStaleness: number }

async function benchRun(url: string, base: string, s: number, seed: number): Promise<Row> {
  const runDir = join(work, `s${s}-seed${seed}`);
  const snapshots: { t: number; cpu: number }[] = [];
  const set = [
    `seed=${seed}`, 'policy.kind=tinker', `policy.tinker.base_url=${url}`, `model.path=${base}`, 'warm_start.enabled=false',
    `train.steps=${values.steps}`, 'train.eval_every=0', `train.eval_tasks=${values['eval-tasks']}`, 'train.checkpoint_every=0', 'train.samples_every=0',
    `train.max_steps_off_policy=${s}`,
    ...values.set!,
  ];
  const started = performance.now();
  const result = await runTraining({ config: recipe, runDir, stream: quiet(snapshots), set });
  const records = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const train = records.filter((r) => r.kind === 'train');
  // Steps 1..n-1: from the end of step 0 to the end of the last step (no eval in between).
  const [from, to] = [train[0].elapsed_s as number, train.at(-1).elapsed_s as number];
  const perStep = (to - from) / (train.length - 1);
  const near = (elapsed: number) => snapshots.reduce((best, x) => (Math.abs(x.t - started - elapsed * 1000) < Math.abs(best.t - started - elapsed * 1000) ? x : best));
  const [a, b] = [near(from), near(to)];
  const wait = 1 - (b.cpu - a.cpu) / ((b.t - a.t) / 1000);
  return { s, seed, perStep, wait, success: result.finalEval?.success_rate ?? null, maxStaleness: Math.max(0, ...train.map((r) => r.off_policy?.max_staleness ?? 0)) };
}

process.env.TINKER_API_KEY ??= 'tml-local';
const base = values.base ?? (await warmBase());
const { url, child } = await startService(base);
const rows: Row[] = [];
try {
  for (const seed of list(values.seeds!)) {
    for (const s of list(values.s!)) {
      const row = await benchRun(url, base, s, seed);
      rows.push(row);
      console.log(`s=${s} seed=${seed}: ${row.perStep.toFixed(2)} s/step, client waits ${(100 * row.wait).toFixed(0)}%, held-out ${row.success === null ? '-' : (100 * row.success).toFixed(1) + '%'}, max staleness trained ${row.maxStaleness}`);
    }
  }
} finally {
  child.kill();
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
console.log(`\nsimulated service: +${values['latency-ms']} ms per request, ${values['us-per-token']} us per token, ${values['decode-ms']} ms per decoding step; ${values.steps} steps of ${recipe}; seeds ${values.seeds}`);
console.log('s  s/step (median)  speed-up vs s=0  client waits  held-out (mean)');
const sync = median(rows.filter((r) => r.s === 0).map((r) => r.perStep));
for (const s of list(values.s!)) {
  const mine = rows.filter((r) => r.s === s);
  const perStep = median(mine.map((r) => r.perStep));
  const successes = mine.flatMap((r) => (r.success === null ? [] : [r.success]));
  const held = successes.length === 0 ? '-' : `${((100 * successes.reduce((x, y) => x + y, 0)) / successes.length).toFixed(1)}%`;
  console.log(`${s}  ${perStep.toFixed(2).padStart(14)}  ${Number.isFinite(sync) ? (sync / perStep).toFixed(2) + 'x' : '-'}`.padEnd(34) + `  ${(100 * median(mine.map((r) => r.wait))).toFixed(0).padStart(11)}%  ${held.padStart(15)}`);
}
