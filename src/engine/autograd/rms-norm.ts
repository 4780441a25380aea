import type { Tensor } from '../tensor.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

/**
 * RMSNorm y = x / sqrt(mean(x^2) + eps) * weight over each run of weight.size values of the
 * last dimension: the whole row usually, each head of a (N, heads * headDim) row for Qwen3's
 * q_norm / k_norm.
 */
export function rmsNorm(tape: Tape, x: Tensor, weight: Tensor, eps: number): Tensor {
  const [n, width] = asMatrix('rmsNorm', 'x', x);
  const d = weight.size;
  expectEqual('rmsNorm', 'the row width modulo the weight length', d === 0 ? 0 : width % d, 0);
  const rows = d === 0 ? 0 : (n * width) / d;
  const k = tape.kernels;
  const out = tape.output(x.shape, [x, weight]);
  const invRms = tape.scratch(rows);
  k.rmsNorm(x.data, weight.data, out.data, invRms, rows, d, eps);
  tape.onBackward(out, () => {
    // The kernel overwrites dx and accumulates dWeight; route around what we do not need.
    // dx goes straight into x's gradient while x has none yet.
    const sink = x.requiresGrad ? tape.gradSink(x) : null;
    const direct = sink !== null && !sink.accumulate;
    const dx = direct ? sink.grad : tape.temp(x.size);
    const dWeight = weight.requiresGrad ? tape.gradOf(weight) : tape.temp(d);
    k.rmsNormBackward(x.data, weight.data, invRms, out.grad!, dx, dWeight, rows, d);
    if (!direct) {
      if (sink) k.axpy(1, dx, sink.grad);
      tape.release(dx);
    }
    if (!weight.requiresGrad) tape.release(dWeight);
  });
  return out;
}
