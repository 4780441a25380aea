// Memory of LoRA training on a frozen bf16 base of Qwen3-0.6B's shape (hidden 1024, 28 layers,
// 16 heads, 8 kv heads, head_dim 128, intermediate 3072, vocab 151936, tied; 596M parameters):
// r = 16 on all seven projections, one step (forward, backward, AdamW on the adapter) of batch
// 4 x 256 scored tokens in micro-batches of --micro rows (the learner's microBatchTokens; the
// gradients add up), on the WASM kernels. Prints the bf16 base's bytes, the peak of live
// kernel memory, the kernel heap and the peak RSS of the process.
// Run: nice -n 10 npx tsx bench/memory-qwen3-lora.ts [--threads 1|2] [--batch 4] [--context 256] [--micro 1] [--json]
// Random weights (no download). Takes minutes on a busy 2-core machine (~4 TFLOP a step).
import os from 'node:os';
import { flag, peakRss } from './process-stats.js';
import { Tape } from '../src/engine/autograd/tape.js';
import { createWasmKernels } from '../src/engine/kernels/wasm-kernels.js';
import { LlamaModel } from '../src/engine/model/llama-model.js';
import { qwen3Shape } from '../src/engine/model/random-bf16-model.js';
import { llamaParameterShapes, LINEAR_MODULES } from '../src/engine/model/llama-params.js';
import { AdamW } from '../src/engine/optim/adamw.js';
import { Tensor } from '../src/engine/tensor.js';
import { countingKernels } from '../src/engine/train-memory.js';
import { Rng } from '../src/util/rng.js';

const GIB = 2 ** 30;
const QWEN3_06B = qwen3Shape();

const threads = flag('--threads', 2) === 1 ? 1 : 2;
const batch = flag('--batch', 4);
const context = flag('--context', 256);
const micro = Math.max(1, Math.min(batch, flag('--micro', 1)));
const wasm = await createWasmKernels({ threads });
const kernels = countingKernels(wasm);
const loadStart = os.loadavg()[0]!;

// Random bf16 weights straight into kernel memory (|w| < 2^-5), unit norms: the base as
// loadModel(..., { frozen: true }) leaves a bf16 checkpoint.
const rng = new Rng(1);
// One random block of bits, tiled (filling 600M values one RNG call each takes minutes).
const block = Uint16Array.from({ length: 1 << 20 }, () => (rng.nextU32() & 0x80ff) | 0x3c00); // +-[2^-7, 2^-5)
const parameters = new Map<string, Tensor>();
let parameterCount = 0;
for (const [name, shape] of llamaParameterShapes(QWEN3_06B)) {
  if (shape.length === 2) {
    const t = Tensor.bf16(kernels, shape);
    for (let at = 0; at < t.size; at += block.length) t.bits.set(block.subarray(0, Math.min(block.length, t.size - at)), at);
    parameters.set(name, t);
  } else {
    const t = Tensor.zeros(kernels, shape);
    t.data.fill(1);
    parameters.set(name, t);
  }
  parameterCount += shape.reduce((a, b) => a * b, 1);
}
const model = LlamaModel.fromParameters(kernels, QWEN3_06B, parameters);
const baseBytes = kernels.liveBytes();
const adapter = model.addAdapter('role', { r: 16, alpha: 32, targetModules: LINEAR_MODULES }, 1);
for (const [name, t] of adapter.parameters) if (name.includes('lora_B')) for (let i = 0; i < t.size; i++) t.data[i] = (rng.next() - 0.5) * 0.01;
const optimizer = new AdamW(kernels, adapter.parameters);
const afterSetup = kernels.liveBytes();
process.stderr.write(`memory-qwen3-lora: ${(parameterCount / 1e6).toFixed(0)}M parameters, base ${(baseBytes / GIB).toFixed(2)} GiB; one step of ${batch} x ${context} (micro-batches of ${micro}), ${threads} thread(s), load ${loadStart.toFixed(2)}\n`);

// Every token but the first of each row is scored: batch * (context - 1) head rows.
const pairs = Array.from({ length: batch }, (_, b) => ({
  promptIds: [b + 1],
  responseIds: Array.from({ length: context - 1 }, (_, t) => (b * 7919 + t * 104729) % QWEN3_06B.vocab_size),
}));
const start = performance.now();
let forwardMs = 0;
let logprobSum = 0;
for (let at = 0; at < batch; at += micro) {
  const t0 = performance.now();
  const tape = new Tape(kernels);
  const { logprobs } = model.tokenLogprobs(tape, pairs.slice(at, at + micro), { adapter: 'role' });
  forwardMs += performance.now() - t0;
  logprobSum += logprobs.data.reduce((a, b) => a + b, 0);
  tape.backward(logprobs, new Float32Array(logprobs.size).fill(-1 / (batch * (context - 1))));
  tape.dispose();
}
const stepPeak = kernels.peakBytes();
optimizer.step(1e-4);
const stepMs = performance.now() - start;
const result = {
  parameters: parameterCount,
  batch,
  context,
  micro_batch_rows: micro,
  threads,
  base_bytes: baseBytes,
  setup_bytes: afterSetup,
  peak_kernel_bytes: stepPeak,
  heap_bytes: wasm.heap.byteLength,
  peak_rss_bytes: peakRss(),
  forward_ms: Math.round(forwardMs),
  step_ms: Math.round(stepMs),
  mean_logprob: logprobSum / (batch * (context - 1)),
  load_start: Number(loadStart.toFixed(2)),
  load_end: Number(os.loadavg()[0]!.toFixed(2)),
};
optimizer.dispose();
model.dispose();
await wasm.dispose();
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else {
  const gib = (b: number) => `${(b / GIB).toFixed(2)} GiB`;
  console.log(`${(parameterCount / 1e6).toFixed(0)}M parameters (bf16 base ${gib(baseBytes)}, + adapter and AdamW ${gib(afterSetup - baseBytes)}), batch ${batch} x ${context} in micro-batches of ${micro} row(s), ${threads} thread(s)`);
  console.log(`peak live kernel memory ${gib(stepPeak)}; kernel heap ${gib(result.heap_bytes)}; peak process RSS ${gib(result.peak_rss_bytes)} (budget 4 GiB)`);
  console.log(`forward ${result.forward_ms} ms, step ${result.step_ms} ms; mean logprob ${result.mean_logprob.toFixed(3)}; load ${result.load_start} -> ${result.load_end}`);
}
