import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import type { Kernels } from '../kernels/types.js';
import { attention } from './attention.js';
import { add, addScaled, mul, scale } from './elementwise.js';
import { concatRows, embedding, gatherRows } from './embedding.js';
import { gradCheck, randomLeaf } from './grad-check.js';
import { linear } from './linear.js';
import { logSoftmaxGather } from './log-softmax-gather.js';
import { mean, sum, weightedSum } from './reduce.js';
import { rmsNorm } from './rms-norm.js';
import { rope } from './rope.js';
import { swiglu } from './swiglu.js';
import type { Tape } from './tape.js';
import type { Tensor } from '../tensor.js';

const TOLERANCE = 1e-3;
/** Plain RoPE with theta 100 over headDim 4: 100^(-2i/4). */
const FREQ_100 = Float32Array.from([1, 0.1]);

/**
 * Every autograd op against central finite differences: one shared suite that each Kernels
 * implementation runs (reference in ops.test.ts, wasm in ops-wasm.test.ts).
 */
export function runOpGradChecks(label: string, makeKernels: () => Promise<Kernels> | Kernels): void {
  let shared: Promise<Kernels> | undefined;
  const kernelsOnce = (): Promise<Kernels> => (shared ??= Promise.resolve(makeKernels()));
  const check = (name: string, shapes: number[][], build: (tape: Tape, xs: Tensor[]) => Tensor, scaleOf = 1): void => {
    test(`${label}: ${name} backward matches finite differences`, async () => {
      const kernels = await kernelsOnce();
      const rng = Rng.derive(7, name);
      const inputs = shapes.map((s) => randomLeaf(kernels, s, rng, scaleOf));
      const errors = gradCheck({ kernels, inputs, build: (tape) => build(tape, inputs) });
      errors.forEach((e, i) => assert.ok(e < TOLERANCE, `${name}: input ${i} relative error ${e}`));
    });
  };

  check('linear', [[5, 3], [4, 3]], (t, [x, w]) => linear(t, x!, w!));
  check('linear with a bias', [[5, 3], [4, 3], [4]], (t, [x, w, b]) => linear(t, x!, w!, b!));
  check('add', [[3, 4], [3, 4]], (t, [a, b]) => add(t, a!, b!));
  check('addScaled', [[3, 4], [3, 4]], (t, [a, b]) => addScaled(t, a!, b!, 0.37));
  check('mul', [[3, 4], [3, 4]], (t, [a, b]) => mul(t, a!, b!));
  check('mul of a tensor with itself', [[2, 5]], (t, [a]) => mul(t, a!, a!));
  check('scale', [[2, 3]], (t, [a]) => scale(t, a!, -1.7));
  check('embedding (repeated ids scatter-add)', [[6, 4]], (t, [w]) => embedding(t, w!, [2, 0, 2, 5, 2]));
  check('gatherRows', [[4, 3]], (t, [x]) => gatherRows(t, x!, [3, 3, 1]));
  check('concatRows', [[2, 3], [3, 3]], (t, [a, b]) => concatRows(t, [a!, b!]));
  check('rmsNorm', [[3, 6], [6]], (t, [x, w]) => rmsNorm(t, x!, w!, 1e-5));
  check('rmsNorm per head (3 heads of 4)', [[2, 12], [4]], (t, [x, w]) => rmsNorm(t, x!, w!, 1e-5));
  check('swiglu', [[3, 5], [3, 5]], (t, [g, u]) => swiglu(t, g!, u!), 2);
  check('rope', [[3, 2 * 4]], (t, [x]) => rope(t, x!, { positions: Int32Array.from([0, 5, 2]), heads: 2, headDim: 4, invFreq: FREQ_100 }));
  check('logSoftmaxGather', [[4, 5]], (t, [x]) => logSoftmaxGather(t, x!, [1, 4, 0, 1]), 2);
  check('sum', [[2, 3]], (t, [x]) => sum(t, x!));
  check('mean', [[2, 3]], (t, [x]) => mean(t, x!));
  check('weightedSum', [[2, 3]], (t, [x]) => weightedSum(t, x!, [1, -2, 0.5, 3, 0, 1]));
  // B=2, T=3, 4 query heads over 2 kv heads (GQA), headDim 2.
  const attn = { batch: 2, seqLen: 3, heads: 4, kvHeads: 2, headDim: 2 };
  check('attention (GQA, causal)', [[6, 8], [6, 4], [6, 4]], (t, [q, k, v]) => attention(t, q!, k!, v!, attn));
  check('attention with a shared prefix of different lengths', [[6, 8], [6, 4], [6, 4], [8, 4], [8, 4]], (t, [q, k, v, pk, pv]) =>
    attention(t, q!, k!, v!, { ...attn, prefix: { k: pk!, v: pv!, seqLen: 4, lengths: [4, 2], index: [1, 1] } }));
  // Several causal row blocks (of 2 rows; T = 5) with a prefix, on tape intermediates so the
  // gradients of q, k, v are written directly rather than accumulated.
  check('attention in row blocks, with a prefix', [[10, 8], [10, 4], [10, 4], [8, 4], [8, 4]], (t, [q, k, v, pk, pv]) =>
    attention(t, scale(t, q!, 1), scale(t, k!, 1), scale(t, v!, 1), { ...attn, seqLen: 5, rowBlock: 2, prefix: { k: pk!, v: pv!, seqLen: 4, lengths: [3, 1], index: [1, 0] } }));
  // An intermediate that feeds several ops: the first backward writes its gradient, the
  // others accumulate (add passes its array on, rope rotates it in place, rmsNorm, swiglu,
  // mul and linear write into it or add).
  check('shared intermediates (direct and accumulated gradients)', [[3, 8], [8], [8, 8]], (t, [x, w, m]) => {
    const h = scale(t, x!, 1.3);
    const r = rope(t, h, { positions: Int32Array.from([0, 3, 1]), heads: 2, headDim: 4, invFreq: FREQ_100 });
    const n = rmsNorm(t, r, w!, 1e-5);
    const s = add(t, swiglu(t, n, r), mul(t, h, h));
    return add(t, linear(t, s, m!), add(t, r, n));
  });
  check('chained intermediates (gradients written once, directly)', [[3, 8], [8], [8, 8], [8, 8]], (t, [x, w, m1, m2]) => {
    const r = rope(t, scale(t, x!, 1.3), { positions: Int32Array.from([2, 0, 1]), heads: 2, headDim: 4, invFreq: FREQ_100 });
    const n = rmsNorm(t, r, w!, 1e-5);
    const s = swiglu(t, linear(t, n, m1!), linear(t, n, m2!));
    return mul(t, s, add(t, n, scale(t, s, 0.5)));
  });
  check('attention with per-sequence prefixes', [[6, 8], [6, 4], [6, 4], [8, 4], [8, 4]], (t, [q, k, v, pk, pv]) =>
    attention(t, q!, k!, v!, { ...attn, prefix: { k: pk!, v: pv!, seqLen: 4, lengths: [4, 2], index: [1, 0] } }));
}
