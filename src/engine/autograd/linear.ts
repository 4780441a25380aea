import type { Tensor } from '../tensor.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

/**
 * y = x W^T for x (N, in) and W (out, in) (PyTorch's Linear layout, no bias).
 * Backward: dx += dy W, dW += dy^T x, both as accumulating matmuls.
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
    if (x.requiresGrad) k.matmul({ a: dy, b: w.data, c: tape.gradOf(x), m: n, n: inF, k: outF, accumulate: true });
    if (w.requiresGrad) k.matmul({ a: dy, b: x.data, c: tape.gradOf(w), m: outF, n: inF, k: n, transA: true, accumulate: true });
  });
  return y;
}
