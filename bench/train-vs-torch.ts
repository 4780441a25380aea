// Side-by-side training step of the standard benchmark model: Troupe's
// engine and PyTorch CPU (bench/torch-train-step.py), same model, batch, context and thread
// count, in alternating rounds so both see the same machine load. On 2 threads PyTorch gets
// its fastest of three thread splits between OpenMP and OpenBLAS.
// Run: npx tsx bench/train-vs-torch.ts [--threads 1|2] [--rounds 3] [--steps 3] [--backend auto|native|wasm]
//        [--python PATH] [--torch-core Haswell|SkylakeX|Nehalem] [--json]
// --python: the interpreter with torch (default /usr/bin/python3: apt-get install python3-torch
// libopenblas0-pthread); a venv with the PyTorch wheel (MKL, AVX-512) is what docs/performance.md compares.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BackendName } from '../src/engine/kernels/backend-name.js';
import { createKernels } from '../src/engine/kernels/get-kernels.js';
import { timeTrainStep } from '../src/engine/train-step-bench.js';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const threads = flag('--threads', 2) === 1 ? 1 : 2;
const rounds = flag('--rounds', 3);
/**
 * OpenBLAS kernel family for PyTorch's matmuls (OPENBLAS_CORETYPE): by default OpenBLAS
 * picks one for the CPU (Haswell = AVX2 here); SkylakeX = AVX-512, Nehalem = 128-bit SSE,
 * the vector width WebAssembly SIMD has.
 */
const torchCore = process.argv.includes('--torch-core') ? process.argv[process.argv.indexOf('--torch-core') + 1] : undefined;
const steps = flag('--steps', 3);
/** (OMP threads, OpenBLAS threads) tried for PyTorch at each thread count. */
const torchSplits: ReadonlyArray<readonly [number, number]> = threads === 1 ? [[1, 1]] : [[2, 1], [1, 2], [2, 2]];
const torchScript = fileURLToPath(new URL('./torch-train-step.py', import.meta.url));
const option = (name: string, fallback: string): string => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1]! : fallback);
const python = option('--python', '/usr/bin/python3');
const kernels = await createKernels({ backend: option('--backend', 'auto') as BackendName, threads });
process.stderr.write(`troupe kernels: ${kernels.name}\n`);
const rows: Array<{ round: number; load: number; troupe_ms: number; troupe_cpu_ms: number; torch_ms: number; torch_cpu_ms: number; torch_split: string }> = [];
for (let round = 0; round < rounds; round++) {
  const load = os.loadavg()[0]!;
  const ours = timeTrainStep({ kernels, steps, warmup: 1 });
  // torch.set_num_threads does not reach OpenBLAS's own thread pool, and which of PyTorch's
  // two pools should get the threads depends on the machine: try every split, keep the fastest.
  let torch = { train_step_ms: Number.POSITIVE_INFINITY, cpu_ms: 0, split: '' };
  for (const [omp, blas] of torchSplits) {
    const env = { ...process.env, OMP_NUM_THREADS: String(omp), OPENBLAS_NUM_THREADS: String(blas), OPENBLAS_VERBOSE: '2', ...(torchCore ? { OPENBLAS_CORETYPE: torchCore } : {}) };
    const run = spawnSync(python, [torchScript, '--threads', String(omp), '--steps', String(steps), '--json'], { encoding: 'utf8', env });
    if (run.status !== 0) throw new Error(`torch-train-step.py failed (is python3-torch installed?):\n${run.stderr}`);
    const result = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { train_step_ms: number; cpu_ms: number };
    const core = /Core: (\w+)/.exec(run.stdout + run.stderr)?.[1] ?? 'unknown';
    process.stderr.write(`  torch OMP ${omp} / OpenBLAS ${blas} (kernels: ${core}): ${Math.round(result.train_step_ms)} ms (cpu ${Math.round(result.cpu_ms)})\n`);
    if (result.train_step_ms < torch.train_step_ms) torch = { ...result, split: `omp${omp}/blas${blas}/${core}` };
  }
  const row = { round, load: Number(load.toFixed(2)), troupe_ms: Math.round(ours.medianMs), troupe_cpu_ms: Math.round(median(ours.cpuMs)), torch_ms: Math.round(torch.train_step_ms), torch_cpu_ms: Math.round(torch.cpu_ms), torch_split: torch.split };
  rows.push(row);
  process.stderr.write(`round ${round}: load ${row.load}; troupe ${row.troupe_ms} ms (cpu ${row.troupe_cpu_ms}); torch best ${row.torch_ms} ms (cpu ${row.torch_cpu_ms}, ${row.torch_split})\n`);
}
await (kernels as { dispose?: () => Promise<void> }).dispose?.();
const summary = {
  threads,
  rounds,
  troupe_ms: median(rows.map((r) => r.troupe_ms)),
  torch_ms: median(rows.map((r) => r.torch_ms)),
  ratio: Number((median(rows.map((r) => r.troupe_ms / r.torch_ms))).toFixed(2)),
  troupe_cpu_ms: median(rows.map((r) => r.troupe_cpu_ms)),
  torch_cpu_ms: median(rows.map((r) => r.torch_cpu_ms)),
  cpu_ratio: Number((median(rows.map((r) => r.troupe_cpu_ms / r.torch_cpu_ms))).toFixed(2)),
  rows,
};
if (process.argv.includes('--json')) console.log(JSON.stringify(summary));
else console.log(`${threads} thread(s), ${rounds} rounds: troupe ${summary.troupe_ms} ms vs torch ${summary.torch_ms} ms per step (median ratio ${summary.ratio}; target <= 1.5); CPU time ${summary.troupe_cpu_ms} vs ${summary.torch_cpu_ms} ms (ratio ${summary.cpu_ratio})`);
