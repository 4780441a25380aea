import type { Tensor } from '../tensor.js';
import { weightMatmul } from '../weight-ops.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

/**
 * y = x W^T (+ b) for x (N, in), W (out, in) and an optional bias b (out) (PyTorch's Linear
 * layout). Backward: dx += dy W (written directly when x has no gradient yet), dW += dy^T x,
 * db += the column sums of dy.
 * W may be a frozen bf16 weight (weight-ops.ts); then it gets no gradient.
 */
export function linear(tape: Tape, x: Tensor, w: Tensor, bias?: Tensor): Tensor {
  const [n, inF] = asMatrix('linear', 'x', x);
  const [outF, inW] = asMatrix('linear', 'weight', w);
  expectEqual('linear', 'the weight input size', inW, inF);
  if (bias) expectEqual('linear', 'the bias length', bias.size, outF);
  const k = tape.kernels;
  const y = tape.output([...x.shape.slice(0, -1), outF], bias ? [x, w, bias] : [x, w]);
  // The bias goes in first and the matmul accumulates onto it: one pass, no extra buffer.
  if (bias) for (let r = 0; r < n; r++) y.data.set(bias.data, r * outF);
  weightMatmul(k, { a: x.data, w, c: y.data, m: n, n: outF, k: inF, transB: true, accumulate: bias !== undefined });
  tape.onBackward(y, () => {
    const dy = y.grad!;
    if (bias?.requiresGrad) {
      const ones = tape.temp(n);
      ones.fill(1);
      k.matmul({ a: ones, b: dy, c: tape.gradOf(bias), m: 1, n: outF, k: n, accumulate: true }); // (1, out)
      tape.release(ones);
    }
    if (x.requiresGrad) {
      const dx = tape.gradSink(x);
      weightMatmul(k, { a: dy, w, c: dx.grad, m: n, n: inF, k: outF, accumulate: dx.accumulate });
    }
    if (w.requiresGrad) k.matmul({ a: dy, b: x.data, c: tape.gradOf(w), m: outF, n: inF, k: n, transA: true, accumulate: true });
  });
  return y;
}
