// Element-wise and row kernels at the benchmark model's training sizes: reference vs wasm.
// Run: npx tsx bench/kernel-ops-bench.ts
import { performance } from 'node:perf_hooks';
import { createReferenceKernels } from '../src/engine/kernels/reference.js';
import { ropeInverseFrequencies } from '../src/engine/model/rope-frequencies.js';
import type { Kernels } from '../src/engine/kernels/types.js';
import { createWasmKernels } from '../src/engine/kernels/wasm-kernels.js';

const TOKENS = 2048; // batch 16 x context 128
const HIDDEN = 256;
const FFN = 1024;
const HEADS = 4;

/** Median microseconds of `body` over 5 batches of at least 20 ms. */
function time(body: () => void): number {
  body();
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    let calls = 0;
    const start = performance.now();
    do {
      body();
      calls++;
    } while (performance.now() - start < 20);
    times.push(((performance.now() - start) * 1000) / calls);
  }
  return times.sort((a, b) => a - b)[2]!;
}

function opCases(k: Kernels): Array<[string, () => void]> {
  const fill = (n: number) => {
    const x = k.alloc(n);
    for (let i = 0; i < n; i++) x[i] = Math.sin(i * 0.37);
    return x;
  };
  const x = fill(TOKENS * HIDDEN);
  const out = fill(TOKENS * HIDDEN);
  const w = fill(HIDDEN);
  const inv = fill(TOKENS);
  const g = fill(TOKENS * FFN);
  const u = fill(TOKENS * FFN);
  const o = fill(TOKENS * FFN);
  const o2 = fill(TOKENS * FFN);
  const scores = fill(128 * 128);
  const positions = Int32Array.from({ length: TOKENS }, (_, t) => t % 128);
  const invFreq = ropeInverseFrequencies({ headDim: HIDDEN / HEADS, theta: 10000 });
  const params = fill(1 << 20);
  const grads = fill(1 << 20);
  const m = k.alloc(1 << 20);
  const v = k.alloc(1 << 20);
  const logits = fill(TOKENS * 64);
  return [
    ['add 2048x256', () => k.add(x, out, out)],
    ['rmsNorm 2048x256', () => k.rmsNorm(x, w, out, inv, TOKENS, HIDDEN, 1e-5)],
    ['rmsNormBackward 2048x256', () => k.rmsNormBackward(x, w, inv, x, out, w, TOKENS, HIDDEN)],
    ['swiglu 2048x1024', () => k.swiglu(g, u, o)],
    ['swigluBackward 2048x1024', () => k.swigluBackward(g, u, o, o2, o2)],
    ['causalSoftmax 128x128', () => { scores.fill(0.5); k.causalSoftmax(scores, 128, 128, 0, 0.125); }],
    ['causalSoftmaxBackward 128x128', () => k.causalSoftmaxBackward(scores, scores, 128, 128, 0.125)],
    ['rope 2048x4x64', () => k.rope(x, positions, TOKENS, HEADS, HIDDEN / HEADS, invFreq, false)],
    ['logSoftmax 2048x64', () => { logits.fill(0.1); k.logSoftmax(logits, TOKENS, 64); }],
    ['adamw 1M', () => k.adamw(params, grads, m, v, { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 1 })],
    ['sumSquares 1M', () => k.sumSquares(grads)],
  ];
}

const wasm = await createWasmKernels({ threads: 1 });
const ref = opCases(createReferenceKernels());
const fast = opCases(wasm);
console.log(`${'op'.padEnd(30)} ${'reference us'.padStart(13)} ${'wasm us'.padStart(9)} ${'speed-up'.padStart(9)}`);
for (let i = 0; i < ref.length; i++) {
  const r = time(ref[i]![1]);
  const f = time(fast[i]![1]);
  console.log(`${ref[i]![0].padEnd(30)} ${r.toFixed(1).padStart(13)} ${f.toFixed(1).padStart(9)} ${(r / f).toFixed(1).padStart(9)}`);
}
await wasm.dispose();
