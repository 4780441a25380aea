import type { Tensor } from '../tensor.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

/**
 * y = x W^T for x (N, in) and W (out, in) (PyTorch's Linear layout, no bias).
 * Backward: dx += dy W (written directly when x has no gradient yet), dW += dy^T x.
 */
export function linear(tape: Tape, x: Tensor, w: Tensor): Tensor {
  const [n, inF] = asMatrix('linear', 'x', x);
  const [outF, inW] = asMatrix('linear', 'weight', w);
  expectEqual('linear', 'the weight input size', inW, inF);
  const k = tape.kernels;
  const y = tape.output([...x.shape.slice(0, -1), outF], [x, w]);
  k.matmul({ a: x.data, b: w.data, c: y.data, m: n, n: outF, k: inF, transB: true });
  tape.onBackward(y, () => {
    const dy = y.grad!;
    if (x.requiresGrad) {
      const dx = tape.gradSink(x);
      k.matmul({ a: dy, b: w.data, c: dx.grad, m: n, n: inF, k: outF, accumulate: dx.accumulate });
    }
    if (w.requiresGrad) k.matmul({ a: dy, b: x.data, c: tape.gradOf(w), m: outF, n: inF, k: n, transA: true, accumulate: true });
  });
  return y;
}
