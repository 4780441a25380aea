// Memory target: a ~20M-parameter model trains with batch 16 x context 256 in
// under 4 GiB. Runs two full training steps (forward, backward, clipping, AdamW) on the WASM
// kernels and prints the peak of live kernel memory, the kernel heap's size and the peak RSS
// of the process.
// Run: npx tsx bench/memory-20m.ts [--threads 1|2] [--steps N] [--json]
// Takes minutes on a busy 2-core machine (about 0.5 TFLOP per step).
import os from 'node:os';
import { flag, peakRss } from './process-stats.js';
import { createWasmKernels } from '../src/engine/kernels/wasm-kernels.js';
import { llamaConfig } from '../src/engine/model/llama-config.js';
import { countingKernels } from '../src/engine/train-memory.js';
import { timeTrainStep } from '../src/engine/train-step-bench.js';

const GIB = 2 ** 30;
/** hidden 512, 6 layers, intermediate 1536, vocab 64: 20.5M parameters. */
export const MODEL_20M = llamaConfig({ hidden: 512, layers: 6, heads: 8, intermediate: 1536, vocab: 64, context: 256 });

const threads = flag('--threads', 2) === 1 ? 1 : 2;
const steps = Math.max(1, flag('--steps', 1));
const loadStart = os.loadavg()[0]!;
const wasm = await createWasmKernels({ threads });
const kernels = countingKernels(wasm);
process.stderr.write(`memory-20m: ${steps + 1} training steps of batch 16 x context 256, ${threads} thread(s), load ${loadStart.toFixed(2)}\n`);
const timing = timeTrainStep({ kernels, config: MODEL_20M, batch: 16, context: 256, steps, warmup: 1 });
const result = {
  parameters: timing.parameters,
  batch: 16,
  context: 256,
  threads,
  steps: steps + 1,
  step_ms: timing.timesMs.map((t) => Math.round(t)),
  losses: timing.losses,
  peak_kernel_bytes: kernels.peakBytes(),
  heap_bytes: wasm.heap.byteLength,
  peak_rss_bytes: peakRss(),
  load_start: Number(loadStart.toFixed(2)),
  load_end: Number(os.loadavg()[0]!.toFixed(2)),
};
await wasm.dispose();
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else {
  const gib = (b: number) => `${(b / GIB).toFixed(2)} GiB`;
  console.log(`${(result.parameters / 1e6).toFixed(2)}M parameters, batch 16 x context 256, ${threads} thread(s)`);
  console.log(`peak live kernel memory ${gib(result.peak_kernel_bytes)}; kernel heap ${gib(result.heap_bytes)}; peak process RSS ${gib(result.peak_rss_bytes)} (budget 4 GiB)`);
  console.log(`timed step ${result.step_ms.join(', ')} ms; loss ${result.losses.map((l) => l.toFixed(3)).join(', ')}; load ${result.load_start} -> ${result.load_end}`);
}
