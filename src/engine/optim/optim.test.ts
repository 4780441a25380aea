import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createReferenceKernels } from '../kernels/reference.js';
import { Tensor } from '../tensor.js';
import { AdamW } from './adamw.js';
import { clipGradNorm } from './clip-grad-norm.js';
import { cosineLr } from './cosine-schedule.js';

const kernels = createReferenceKernels();

function param(values: number[], shape: number[]): Tensor {
  const t = Tensor.parameter(kernels, shape);
  t.data.set(values);
  return t;
}

test('AdamW follows the scalar formula; weight decay only on matrices by default', () => {
  const w = param([1, -2, 3, 0.5], [2, 2]);
  const n = param([1, 1], [2]);
  const opt = new AdamW(kernels, new Map([['w', w], ['n', n]]), { weightDecay: 0.1, beta1: 0.9, beta2: 0.99, eps: 1e-8 });
  const grads = [[0.5, -1, 0, 2], [0.1, -0.3]];
  // Scalar replay of two steps for w[1] and n[0].
  let [pw, mw, vw, pn, mn, vn] = [-2, 0, 0, 1, 0, 0];
  for (let step = 1; step <= 2; step++) {
    w.grad!.set(grads[0]!);
    n.grad!.set(grads[1]!);
    opt.step(0.01);
    const upd = (p: number, m: number, v: number, g: number, wd: number): [number, number, number] => {
      m = 0.9 * m + 0.1 * g;
      v = 0.99 * v + 0.01 * g * g;
      const mh = m / (1 - 0.9 ** step);
      const vh = v / (1 - 0.99 ** step);
      return [p * (1 - 0.01 * wd) - (0.01 * mh) / (Math.sqrt(vh) + 1e-8), m, v];
    };
    [pw, mw, vw] = upd(pw, mw, vw, -1, 0.1);
    [pn, mn, vn] = upd(pn, mn, vn, 0.1, 0);
  }
  assert.ok(Math.abs(w.data[1]! - pw) < 1e-6, `${w.data[1]} vs ${pw}`);
  assert.ok(Math.abs(n.data[0]! - pn) < 1e-6, `${n.data[0]} vs ${pn}`);
  assert.equal(opt.stepCount, 2);
});

test('exported optimizer state resumes exactly', () => {
  const run = (split: boolean): Float32Array => {
    const w = param([1, 2, 3, 4, 5, 6], [2, 3]);
    let opt = new AdamW(kernels, new Map([['w', w]]), { weightDecay: 0.01 });
    for (let s = 0; s < 4; s++) {
      if (split && s === 2) {
        const state = opt.exportState();
        opt = new AdamW(kernels, new Map([['w', w]]), { weightDecay: 0.01 });
        opt.importState(state);
      }
      for (let i = 0; i < 6; i++) w.grad![i] = Math.sin(s + i) * w.data[i]!;
      opt.step(0.05);
    }
    return w.data;
  };
  assert.deepEqual(run(true), run(false));
  const w = param([1, 2], [2]);
  const opt = new AdamW(kernels, new Map([['w', w]]));
  assert.throws(() => opt.importState({ step: 1, tensors: new Map() }), /'w\.exp_avg' is missing/);
});

test('clipGradNorm scales all gradients to the global max norm and reports the norm', () => {
  const a = param([0, 0], [2]);
  const b = param([0], [1]);
  a.grad!.set([3, 0]);
  b.grad!.set([4]);
  const norm = clipGradNorm(kernels, [a, b], 1);
  assert.equal(norm, 5);
  assert.ok(Math.abs(Math.hypot(a.grad![0]!, b.grad![0]!) - 1) < 1e-5);
  assert.ok(Math.abs(a.grad![0]! / b.grad![0]! - 0.75) < 1e-6);
  a.grad!.set([0.3, 0]);
  b.grad!.set([0.4]);
  assert.ok(Math.abs(clipGradNorm(kernels, [a, b], 1) - 0.5) < 1e-6);
  assert.ok(Math.abs(a.grad![0]! - 0.3) < 1e-7, 'below the limit nothing changes');
});

test('cosine schedule: linear warm-up, peak, half-way, floor', () => {
  const lr = (step: number) => cosineLr({ step, warmupSteps: 4, totalSteps: 14, maxLr: 1, minLr: 0.1 });
  assert.deepEqual([0, 1, 2, 3].map(lr), [0.25, 0.5, 0.75, 1]);
  assert.ok(Math.abs(lr(4) - 1) < 1e-12);
  assert.ok(Math.abs(lr(9) - 0.55) < 1e-12);
  assert.ok(Math.abs(lr(14) - 0.1) < 1e-12);
  assert.ok(Math.abs(lr(100) - 0.1) < 1e-12);
});
