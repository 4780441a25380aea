import type { Tensor } from '../tensor.js';
import { weightMatmul } from '../weight-ops.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

/** A LoRA pair of one projection: A (r, in), B (out, r), and the factor alpha / r. */
export interface LoraPair {
  readonly a: Tensor;
  readonly b: Tensor;
  readonly scale: number;
}

/**
 * y = x W^T (+ bias) + (scale x A^T) B^T in one op, for x (N, in), W (out, in), A (r, in),
 * B (out, r). Written as linear + linear + linear + addScaled it would keep three (N, out)
 * arrays per projection until the step ends; this keeps the output and s = scale x A^T (N, r)
 * only, and adds s B^T straight onto y: no (N, out) temporary and no extra pass over one,
 * forward or backward. The same sums as those four ops to rounding (the factor is applied to
 * x A^T, and s B^T is added inside the matmul). Backward, with
 * t = scale dy B: dB += dy^T s, dA += t^T x, dx += t A + dy W, dW += dy^T x (when W trains).
 * W may be bf16.
 */
export function loraLinear(tape: Tape, x: Tensor, w: Tensor, bias: Tensor | undefined, lora: LoraPair): Tensor {
  const [n, inF] = asMatrix('loraLinear', 'x', x);
  const [outF, inW] = asMatrix('loraLinear', 'weight', w);
  const [r, inA] = asMatrix('loraLinear', 'lora A', lora.a);
  const [outB, rB] = asMatrix('loraLinear', 'lora B', lora.b);
  expectEqual('loraLinear', 'the weight input size', inW, inF);
  expectEqual('loraLinear', 'the lora A input size', inA, inF);
  expectEqual('loraLinear', 'the lora B output size', outB, outF);
  expectEqual('loraLinear', 'the lora B rank', rB, r);
  if (bias) expectEqual('loraLinear', 'the bias length', bias.size, outF);
  const k = tape.kernels;
  const { a, b, scale } = lora;
  const y = tape.output([...x.shape.slice(0, -1), outF], bias ? [x, w, a, b, bias] : [x, w, a, b]);
  if (bias) for (let row = 0; row < n; row++) y.data.set(bias.data, row * outF);
  weightMatmul(k, { a: x.data, w, c: y.data, m: n, n: outF, k: inF, transB: true, accumulate: bias !== undefined });
  const down = tape.scratch(n * r); // s = scale x A^T (N, r): kept for dB
  k.matmul({ a: x.data, b: a.data, c: down, m: n, n: r, k: inF, transB: true });
  scaleInPlace(down, scale);
  k.matmul({ a: down, b: b.data, c: y.data, m: n, n: outF, k: r, transB: true, accumulate: true });
  tape.onBackward(y, () => {
    const dy = y.grad!;
    const t = tape.temp(n * r); // scale dy B (N, r)
    k.matmul({ a: dy, b: b.data, c: t, m: n, n: r, k: outF });
    scaleInPlace(t, scale);
    if (b.requiresGrad) k.matmul({ a: dy, b: down, c: tape.gradOf(b), m: outF, n: r, k: n, transA: true, accumulate: true });
    if (a.requiresGrad) k.matmul({ a: t, b: x.data, c: tape.gradOf(a), m: r, n: inF, k: n, transA: true, accumulate: true });
    if (x.requiresGrad) {
      const dx = tape.gradSink(x);
      k.matmul({ a: t, b: a.data, c: dx.grad, m: n, n: inF, k: r, accumulate: dx.accumulate });
      weightMatmul(k, { a: dy, w, c: dx.grad, m: n, n: inF, k: outF, accumulate: true });
    }
    tape.release(t);
    if (bias?.requiresGrad) {
      const ones = tape.temp(n);
      ones.fill(1);
      k.matmul({ a: ones, b: dy, c: tape.gradOf(bias), m: 1, n: outF, k: n, accumulate: true }); // (1, out)
      tape.release(ones);
    }
    if (w.requiresGrad) k.matmul({ a: dy, b: x.data, c: tape.gradOf(w), m: outF, n: inF, k: n, transA: true, accumulate: true });
  });
  return y;
}

/** x *= factor over an (N, r) array: r is small, so a plain loop beats a kernel call. */
function scaleInPlace(x: Float32Array, factor: number): void {
  if (factor === 1) return;
  for (let i = 0; i < x.length; i++) x[i] = x[i]! * factor;
}
