// How the code sandbox's throughput grows with its concurrency (TROUPE_THREADS programs at
// once by default): the same batch of small CPU-bound Python programs (each sums 500,000 terms
// on its own input: about 0.2 s with the sandbox's start on a 2.5 GHz Xeon) run at each
// concurrency; programs per second,
// and whether every concurrency gave every program the same output.
//
//   npx tsc -p tsconfig.json
//   node dist/bench/sandbox-concurrency.js [--concurrency 1,4,16] [--programs 64] [--work 500000]
//
// Prints one JSON object; where the machine cannot sandbox (no unshare, not root, no python3,
// namespaces refused), the object's `error` says why and the exit status is still 0, so a
// benchmark script can go on.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Sandbox } from '../src/sandbox/sandbox.js';
import { defaultThreads } from '../src/util/thread-count.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string' },
    programs: { type: 'string', default: '64' },
    work: { type: 'string', default: '500000' },
  },
});
const levels = (values.concurrency ?? `1,${defaultThreads()}`).split(',').map(Number);
const programs = Number(values.programs);
const work = Number(values.work);
for (const [name, value, max] of [['--programs', programs, 4096], ['--work', work, 1e9], ...levels.map((c) => ['--concurrency', c, 64] as const)] as const) {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    process.stderr.write(`sandbox-concurrency: ${name} must be whole numbers from 1 to ${max}, got ${value}\n`);
    process.exit(2);
  }
}
const code = 'n = int(input())\nprint(sum(i * i % 7 for i in range(n)))\n';

const points: Array<{ concurrency: number; wall_s: number; programs_per_s: number; ok: number }> = [];
const outputs: string[][] = [];
try {
  for (const concurrency of levels) {
    const sandbox = new Sandbox({ concurrency, limits: { wallMs: 10_000, cpuMs: 10_000 } });
    sandbox.hostSetup();
    const start = performance.now();
    const results = await Promise.all(Array.from({ length: programs }, (_, i) => sandbox.run({ language: 'python', code, stdin: `${work + i}\n` })));
    const wall = (performance.now() - start) / 1000;
    points.push({ concurrency, wall_s: Number(wall.toFixed(2)), programs_per_s: Number((programs / wall).toFixed(2)), ok: results.filter((r) => r.reason === 'ok').length });
    outputs.push(results.map((r) => `${r.reason} ${r.stdout.trim()}`));
    process.stderr.write(`sandbox-concurrency: ${concurrency} at once: ${programs} programs in ${wall.toFixed(2)} s\n`);
  }
  process.stdout.write(`${JSON.stringify({ programs, work, points, same_outputs: outputs.every((o) => o.join('\n') === outputs[0]!.join('\n')) })}\n`);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`sandbox-concurrency: the sandbox cannot run here: ${message}\n`);
  process.stdout.write(`${JSON.stringify({ programs, work, points, error: message })}\n`);
}
