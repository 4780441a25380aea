import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRng, randomArray } from '../kernels/conformance-helpers.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { Tensor } from '../tensor.js';
import { addScaled } from './elementwise.js';
import { linear } from './linear.js';
import { loraLinear } from './lora-linear.js';
import { Tape } from './tape.js';

/** The fused LoRA projection equals linear + linear + linear + addScaled, forward and backward,
 *  to rounding: it applies the scale to x A^T and accumulates onto y inside the matmul. */
const kernels = createReferenceKernels();
const [n, inF, outF, r] = [6, 5, 7, 3];
const rng = newRng('lora-linear');
const values = { x: randomArray(rng, n * inF), w: randomArray(rng, outF * inF), bias: randomArray(rng, outF), a: randomArray(rng, r * inF), b: randomArray(rng, outF * r) };
const g = randomArray(rng, n * outF);

function run(fused: boolean, withBias: boolean, scale: number): Record<string, number[]> {
  const tape = new Tape(kernels);
  const t = (shape: number[], data: Float32Array) => new Tensor(shape, Float32Array.from(data), true);
  const x = t([n, inF], values.x);
  const w = t([outF, inF], values.w);
  const bias = withBias ? t([outF], values.bias) : undefined;
  const a = t([r, inF], values.a);
  const b = t([outF, r], values.b);
  const y = fused
    ? loraLinear(tape, x, w, bias, { a, b, scale })
    : addScaled(tape, linear(tape, x, w, bias), linear(tape, linear(tape, x, a), b), scale);
  const out = { y: Array.from(y.data) } as Record<string, number[]>;
  tape.backward(y, g);
  for (const [name, tensor] of Object.entries({ x, w, a, b, ...(bias ? { bias } : {}) })) out[`d${name}`] = Array.from(tensor.grad!);
  tape.dispose();
  return out;
}

test('loraLinear equals the unfused LoRA projection: output and the gradients of x, W, A, B and the bias', () => {
  for (const withBias of [false, true]) {
    for (const scale of [1.5, 2]) {
      const expected = run(false, withBias, scale);
      const got = run(true, withBias, scale);
      assert.deepEqual(Object.keys(got).sort(), Object.keys(expected).sort());
      for (const [name, want] of Object.entries(expected)) {
        const what = `bias=${withBias} scale=${scale} ${name}`;
        got[name]!.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) <= 1e-6 * (1 + Math.abs(want[i]!)), `${what}[${i}]: ${v} vs ${want[i]}`));
      }
    }
  }
});
