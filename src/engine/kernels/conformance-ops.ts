import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertClose, finiteDifference, newRng, PLACEMENTS, Placer, randomArray } from './conformance-helpers.js';
import { createReferenceKernels } from './reference.js';
import type { Kernels } from './types.js';

const reference = createReferenceKernels();
const ODD_SIZES = [1, 3, 17, 33, 65];

/** float64 RMSNorm for finite differences. */
function rmsNorm64(x: Float64Array, w: ArrayLike<number>, rows: number, d: number, eps: number): Float64Array {
  const out = new Float64Array(rows * d);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let i = 0; i < d; i++) s += x[r * d + i]! ** 2;
    const inv = 1 / Math.sqrt(s / d + eps);
    for (let i = 0; i < d; i++) out[r * d + i] = x[r * d + i]! * inv * w[i]!;
  }
  return out;
}

/** float64 causal softmax (offset 0) for finite differences. */
function softmax64(s: Float64Array, rows: number, cols: number, scale: number): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const last = Math.min(r, cols - 1);
    let max = -Infinity;
    for (let j = 0; j <= last; j++) max = Math.max(max, s[r * cols + j]! * scale);
    let sum = 0;
    for (let j = 0; j <= last; j++) sum += Math.exp(s[r * cols + j]! * scale - max);
    for (let j = 0; j <= last; j++) out[r * cols + j] = Math.exp(s[r * cols + j]! * scale - max) / sum;
  }
  return out;
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

export function opsConformance(kernels: () => Kernels): void {
  test('add / mul (out aliasing a) / axpy / sumSquares on odd lengths and placements', () => {
    const k = kernels();
    const placer = new Placer(k);
    const rng = newRng('elementwise');
    assert.equal(k.sumSquares(new Float32Array([1, 2, 3])), 14);
    ODD_SIZES.forEach((n, v) => {
      const placement = PLACEMENTS[v % PLACEMENTS.length]!;
      const a0 = randomArray(rng, n);
      const b0 = randomArray(rng, n);
      const a = placer.place(a0, placement);
      const b = placer.place(b0, PLACEMENTS[(v + 1) % PLACEMENTS.length]!);
      const out = placer.place(new Float32Array(n), placement);
      k.add(a, b, out);
      assertClose(out, a0.map((x, i) => x + b0[i]!), { rtol: 0, atol: 0 }, `add n=${n}`);
      k.mul(a, b, a);
      assertClose(a, a0.map((x, i) => Math.fround(x * b0[i]!)), { rtol: 0, atol: 0 }, `mul aliased n=${n}`);
      k.axpy(0.5, b, out);
      assertClose(out, a0.map((x, i) => x + b0[i]! + 0.5 * b0[i]!), { rtol: 1e-6 }, `axpy n=${n}`);
      assertClose([k.sumSquares(b)], [dot(b0, b0)], { rtol: 1e-6 }, `sumSquares n=${n}`);
    });
    const big = randomArray(rng, 100_003);
    assertClose([k.sumSquares(big)], [dot(big, big)], { rtol: 1e-7 }, 'sumSquares of 100k values');
    placer.freeAll();
  });

  test('rmsNorm: hand case, random rows vs reference, backward vs finite differences', () => {
    const k = kernels();
    const out = new Float32Array(2);
    const inv = new Float32Array(1);
    k.rmsNorm(new Float32Array([3, 4]), new Float32Array([1, 2]), out, inv, 1, 2, 0);
    const rms = Math.sqrt(12.5);
    assertClose(out, [3 / rms, 8 / rms], { rtol: 1e-6 }, 'hand rmsNorm');
    assertClose(inv, [1 / rms], { rtol: 1e-6 }, 'hand invRms');
    const rng = newRng('rmsnorm');
    const placer = new Placer(k);
    for (const d of [1, 3, 17, 65]) {
      const rows = 3;
      const x = placer.place(randomArray(rng, rows * d, 2), 'alloc-offset');
      const w = placer.place(randomArray(rng, d), 'plain');
      const [o1, o2] = [new Float32Array(rows * d), new Float32Array(rows * d)];
      const [i1, i2] = [new Float32Array(rows), new Float32Array(rows)];
      k.rmsNorm(x, w, o1, i1, rows, d, 1e-5);
      reference.rmsNorm(x, w, o2, i2, rows, d, 1e-5);
      assertClose(o1, o2, { rtol: 2e-6, atol: 1e-6 }, `rmsNorm d=${d}`);
      assertClose(i1, i2, { rtol: 2e-6 }, `invRms d=${d}`);
      // Backward: L = sum(out * R); check dx and dWeight (accumulated onto ones).
      const R = randomArray(rng, rows * d);
      const dx = new Float32Array(rows * d);
      const dW = new Float32Array(d).fill(1);
      k.rmsNormBackward(x, w, i1, R, dx, dW, rows, d);
      const fdX = finiteDifference((xx) => dot(rmsNorm64(xx, w, rows, d, 1e-5), R), x, 1e-3);
      const fdW = finiteDifference((ww) => dot(rmsNorm64(Float64Array.from(x), ww, rows, d, 1e-5), R), w, 1e-3);
      assertClose(dx, fdX, { rtol: 1e-3, atol: 1e-4 }, `rmsNorm dx d=${d}`);
      assertClose(dW, fdW.map((g) => g + 1), { rtol: 1e-3, atol: 1e-4 }, `rmsNorm dWeight d=${d}`);
    }
    placer.freeAll();
  });

  test('causalSoftmax: hand case with offset and scale, masks, random vs reference', () => {
    const k = kernels();
    // rows 2, cols 3, offset 1: row 0 sees columns 0..1, row 1 sees 0..2.
    const s = new Float32Array([1, 2, 3, 0, 1, 2]);
    k.causalSoftmax(s, 2, 3, 1, 0.5);
    const e = (v: number) => Math.exp(0.5 * v);
    const z0 = e(1) + e(2);
    const z1 = e(0) + e(1) + e(2);
    assertClose(s, [e(1) / z0, e(2) / z0, 0, e(0) / z1, e(1) / z1, e(2) / z1], { rtol: 2e-6 }, 'hand causalSoftmax');
    const none = new Float32Array([5, 6, 7, 8]);
    k.causalSoftmax(none, 2, 2, -1, 1);
    assert.deepEqual([...none], [0, 0, 1, 0], 'offset -1: row 0 sees nothing, row 1 sees column 0');
    const rng = newRng('softmax');
    const placer = new Placer(k);
    ODD_SIZES.forEach((cols, v) => {
      const rows = Math.min(cols, 5);
      for (const offset of [0, cols - rows, 2]) {
        const data = randomArray(rng, rows * cols, 8);
        const mine = placer.place(data, PLACEMENTS[v % PLACEMENTS.length]!);
        const theirs = data.slice();
        k.causalSoftmax(mine, rows, cols, offset, 0.7);
        reference.causalSoftmax(theirs, rows, cols, offset, 0.7);
        assertClose(mine, theirs, { rtol: 2e-6, atol: 1e-7 }, `causalSoftmax cols=${cols} offset=${offset}`);
      }
    });
    placer.freeAll();
  });

  test('causalSoftmaxBackward vs finite differences of the forward', () => {
    const k = kernels();
    const rng = newRng('softmax-backward');
    for (const [rows, cols] of [[3, 3], [5, 7], [4, 17]] as const) {
      const s = randomArray(rng, rows * cols, 2);
      const R = randomArray(rng, rows * cols);
      const p = s.slice();
      k.causalSoftmax(p, rows, cols, 0, 0.5);
      const dS = R.slice();
      k.causalSoftmaxBackward(p, dS, rows, cols, 0.5);
      const fd = finiteDifference((ss) => dot(softmax64(ss, rows, cols, 0.5), R), s, 1e-3);
      assertClose(dS, fd, { rtol: 1e-3, atol: 1e-5 }, `softmax backward ${rows}x${cols}`);
    }
  });

  test('swiglu over a wide range of gates; backward vs finite differences', () => {
    const k = kernels();
    const n = 67;
    const gate = new Float32Array(n).map((_, i) => -30 + (60 * i) / (n - 1));
    const up = randomArray(newRng('swiglu-up'), n, 2);
    const out = new Float32Array(n);
    k.swiglu(gate, up, out);
    const silu = (g: number) => g / (1 + Math.exp(-g));
    assertClose(out, gate.map((g, i) => silu(g) * up[i]!), { rtol: 2e-6, atol: 1e-12 }, 'swiglu');
    const R = randomArray(newRng('swiglu-R'), n);
    const g5 = gate.map((g) => g / 6); // keep the finite differences in the curved region
    const dGate = new Float32Array(n);
    const dUp = new Float32Array(n);
    k.swigluBackward(g5, up, R, dGate, dUp);
    const loss = (g: ArrayLike<number>, u: ArrayLike<number>) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += silu(g[i]!) * u[i]! * R[i]!;
      return s;
    };
    assertClose(dGate, finiteDifference((g) => loss(g, up), g5), { rtol: 1e-4, atol: 1e-5 }, 'dGate');
    assertClose(dUp, finiteDifference((u) => loss(g5, u), up), { rtol: 1e-4, atol: 1e-5 }, 'dUp');
  });

  test('rope: hand rotation, inverse undoes it, plain and rescaled tables vs reference', () => {
    const k = kernels();
    const x = new Float32Array([1, 0, 0, 1, 1, 0]);
    k.rope(x, new Int32Array([1, 0, 2]), 3, 1, 2, Float32Array.from([1]), false);
    assertClose(x, [Math.cos(1), Math.sin(1), 0, 1, Math.cos(2), Math.sin(2)], { rtol: 1e-6, atol: 1e-7 }, 'hand rope (pos 1, 0, 2)');
    const quarter = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0]);
    k.rope(quarter, new Int32Array([1]), 1, 1, 8, Float32Array.from([0, Math.PI / 2, 0, 0]), false);
    assertClose(quarter, [1, -1, 0, 0, 0, 0, 0, 0], { atol: 1e-6 }, 'pair 1 turned a quarter by its own frequency');
    const rng = newRng('rope');
    const placer = new Placer(k);
    for (const headDim of [2, 6, 8, 64]) {
      const half = headDim / 2;
      const plain = Float32Array.from({ length: half }, (_, i) => Math.pow(10000, (-2 * i) / headDim));
      // Llama 3 style: some frequencies divided by a factor, others left alone.
      const rescaled = plain.map((f, i) => (i % 3 === 1 ? f / 8 : f));
      for (const [kind, invFreq] of [['plain', plain], ['rescaled', rescaled]] as const) {
        const tokens = 5;
        const heads = 3;
        const positions = new Int32Array([0, 3, 7, 1000, 2]);
        const data = randomArray(rng, tokens * heads * headDim);
        const mine = placer.place(data, headDim === 8 ? 'plain-offset' : 'alloc-offset');
        const theirs = data.slice();
        k.rope(mine, positions, tokens, heads, headDim, invFreq, false);
        reference.rope(theirs, positions, tokens, heads, headDim, invFreq, false);
        assertClose(mine, theirs, { rtol: 1e-5, atol: 1e-6 }, `rope ${kind} headDim=${headDim}`);
        k.rope(mine, positions, tokens, heads, headDim, invFreq, true);
        assertClose(mine, data, { rtol: 1e-5, atol: 1e-6 }, `rope ${kind} inverse headDim=${headDim}`);
      }
    }
    placer.freeAll();
  });

  test('logSoftmax: hand values, stability at large logits, random odd vocab vs reference', () => {
    const k = kernels();
    const x = new Float32Array([0, 0, 1000, 1001]);
    k.logSoftmax(x, 2, 2);
    const l2 = Math.log(2);
    const top = -Math.log(1 + Math.exp(-1));
    assertClose(x, [-l2, -l2, top - 1, top], { rtol: 1e-6 }, 'hand logSoftmax');
    const rng = newRng('logsoftmax');
    ODD_SIZES.forEach((vocab, v) => {
      const rows = 3;
      const data = randomArray(rng, rows * vocab, 10);
      const placer = new Placer(k);
      const mine = placer.place(data, PLACEMENTS[v % PLACEMENTS.length]!);
      const theirs = data.slice();
      k.logSoftmax(mine, rows, vocab);
      reference.logSoftmax(theirs, rows, vocab);
      assertClose(mine, theirs, { rtol: 2e-6, atol: 2e-6 }, `logSoftmax vocab=${vocab}`);
      placer.freeAll();
    });
  });

  test('logSoftmax with entropy: each row\'s -sum p log p, hand rows and random odd vocab vs reference', () => {
    const k = kernels();
    // A uniform row over 4 has entropy log 4; a near one-hot row nearly 0.
    const hand = new Float32Array([3, 3, 3, 3, 60, 0, 0, 0]);
    const entropy = new Float32Array(2);
    k.logSoftmax(hand, 2, 4, entropy);
    assertClose(entropy, [Math.log(4), 0], { rtol: 1e-6, atol: 1e-6 }, 'hand entropy');
    const rng = newRng('logsoftmax-entropy');
    ODD_SIZES.forEach((vocab) => {
      const rows = 3;
      const mine = randomArray(rng, rows * vocab, 4);
      const theirs = mine.slice();
      const [hMine, hTheirs] = [new Float32Array(rows), new Float32Array(rows)];
      k.logSoftmax(mine, rows, vocab, hMine);
      reference.logSoftmax(theirs, rows, vocab, hTheirs);
      assertClose(mine, theirs, { rtol: 2e-6, atol: 2e-6 }, `logSoftmax with entropy vocab=${vocab}`);
      assertClose(hMine, hTheirs, { rtol: 1e-5, atol: 1e-6 }, `entropy vocab=${vocab}`);
    });
    assert.throws(() => k.logSoftmax(new Float32Array(4), 2, 2, new Float32Array(1)), /logSoftmax: 'entropy'/);
  });

  test('logSoftmaxGatherBackward: hand row, random odd vocab vs reference, a target outside the vocabulary is refused', () => {
    const k = kernels();
    const hand = new Float32Array([Math.log(0.25), Math.log(0.75), Math.log(0.5), Math.log(0.5)]);
    k.logSoftmaxGatherBackward(hand, 2, 2, new Int32Array([1, 0]), new Float32Array([2, -1]));
    assertClose(hand, [-0.5, 0.5, -0.5, 0.5], { rtol: 1e-6, atol: 1e-7 }, 'hand logSoftmaxGatherBackward');
    const rng = newRng('logsoftmax-gather-backward');
    ODD_SIZES.forEach((vocab, v) => {
      const rows = 3;
      const logp = randomArray(rng, rows * vocab, 10);
      reference.logSoftmax(logp, rows, vocab);
      const targets = Int32Array.from({ length: rows }, (_, r) => (r * 7 + v) % vocab);
      const g = randomArray(rng, rows);
      const placer = new Placer(k);
      const mine = placer.place(logp, PLACEMENTS[v % PLACEMENTS.length]!);
      const theirs = logp.slice();
      k.logSoftmaxGatherBackward(mine, rows, vocab, targets, g);
      reference.logSoftmaxGatherBackward(theirs, rows, vocab, targets, g);
      assertClose(mine, theirs, { rtol: 2e-6, atol: 2e-7 }, `logSoftmaxGatherBackward vocab=${vocab}`);
      placer.freeAll();
    });
    assert.throws(() => k.logSoftmaxGatherBackward(new Float32Array(4), 2, 2, new Int32Array([0, 2]), new Float32Array(2)),
      /logSoftmaxGatherBackward: target 2 of row 1 is outside the vocabulary 0\.\.1/);
  });

  test('adamw matches the scalar formula over several steps', () => {
    const k = kernels();
    const rng = newRng('adamw');
    const n = 37;
    const opts = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1 };
    const placer = new Placer(k);
    const param = placer.place(randomArray(rng, n), 'alloc');
    const m = placer.place(new Float32Array(n), 'plain');
    const v = placer.place(new Float32Array(n), 'alloc-offset');
    const p64 = Float64Array.from(param);
    const m64 = new Float64Array(n);
    const v64 = new Float64Array(n);
    for (let step = 1; step <= 3; step++) {
      const grad = randomArray(rng, n);
      k.adamw(param, grad, m, v, { ...opts, step });
      for (let i = 0; i < n; i++) {
        m64[i] = opts.beta1 * m64[i]! + (1 - opts.beta1) * grad[i]!;
        v64[i] = opts.beta2 * v64[i]! + (1 - opts.beta2) * grad[i]! ** 2;
        const mHat = m64[i]! / (1 - opts.beta1 ** step);
        const vHat = v64[i]! / (1 - opts.beta2 ** step);
        p64[i] = p64[i]! - opts.lr * opts.weightDecay * p64[i]! - (opts.lr * mHat) / (Math.sqrt(vHat) + opts.eps);
      }
      assertClose(param, p64, { rtol: 1e-5, atol: 1e-6 }, `adamw param step ${step}`);
      assertClose(m, m64, { rtol: 1e-5, atol: 1e-7 }, `adamw m step ${step}`);
      assertClose(v, v64, { rtol: 1e-5, atol: 1e-9 }, `adamw v step ${step}`);
    }
    placer.freeAll();
  });
}
