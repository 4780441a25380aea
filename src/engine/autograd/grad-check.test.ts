import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { createReferenceKernels } from '../kernels/reference.js';
import type { Tensor } from '../tensor.js';
import { gradCheck, randomLeaf } from './grad-check.js';
import { linear } from './linear.js';
import { Tape } from './tape.js';

const kernels = createReferenceKernels();

/** y = x^2 with a deliberately wrong backward (dx = x instead of 2x). */
function brokenSquare(tape: Tape, x: Tensor): Tensor {
  const y = tape.tensor(x.shape, [x]);
  for (let i = 0; i < x.size; i++) y.data[i] = x.data[i]! ** 2;
  tape.onBackward(y, () => {
    const dx = tape.gradOf(x);
    for (let i = 0; i < x.size; i++) dx[i] = dx[i]! + y.grad![i]! * x.data[i]!;
  });
  return y;
}

test('gradCheck flags a wrong backward', () => {
  const x = randomLeaf(kernels, [3, 4], new Rng(2));
  const [error] = gradCheck({ kernels, inputs: [x], build: (tape) => brokenSquare(tape, x) });
  assert.ok(error! > 0.1, `expected a large error, got ${error}`);
});

test('gradients accumulate into leaves across two backward passes (micro-batches)', () => {
  const rng = new Rng(3);
  const x = randomLeaf(kernels, [2, 3], rng);
  const w = randomLeaf(kernels, [4, 3], rng);
  const once = (): Float32Array => {
    const tape = new Tape(kernels);
    tape.backward(linear(tape, x, w), new Float32Array(8).fill(1));
    tape.dispose();
    return Float32Array.from(w.grad!);
  };
  const first = once();
  const second = once();
  first.forEach((g, i) => assert.ok(Math.abs(second[i]! - 2 * g) < 1e-6));
});

test('a disposed or finished tape refuses new work', () => {
  const rng = new Rng(4);
  const x = randomLeaf(kernels, [1, 2], rng);
  const w = randomLeaf(kernels, [1, 2], rng);
  const tape = new Tape(kernels);
  const y = linear(tape, x, w);
  tape.backward(y);
  assert.throws(() => linear(tape, x, w), /already ran backward/);
  tape.dispose();
  assert.throws(() => linear(tape, x, w), /disposed/);
});
