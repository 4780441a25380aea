import { TroupeError } from '../../util/errors.js';
import type { Tensor } from '../tensor.js';
import type { Tape } from './tape.js';

/** Scalar sum_i weights[i] * x[i] (float64 accumulation); sum and mean are special cases. */
export function weightedSum(tape: Tape, x: Tensor, weights: ArrayLike<number>): Tensor {
  if (weights.length !== x.size) {
    throw new TroupeError('engine', `weightedSum: ${weights.length} weights for a tensor of ${x.size} elements; pass one weight per element`);
  }
  const out = tape.output([1], [x]);
  let total = 0;
  for (let i = 0; i < x.size; i++) total += weights[i]! * x.data[i]!;
  out.data[0] = total;
  tape.onBackward(out, () => {
    const g = out.grad![0]!;
    const dx = tape.gradOf(x);
    for (let i = 0; i < dx.length; i++) dx[i] = dx[i]! + g * weights[i]!;
  });
  return out;
}

/** Scalar sum of all elements. */
export function sum(tape: Tape, x: Tensor): Tensor {
  return weightedSum(tape, x, new Float64Array(x.size).fill(1));
}

/** Scalar mean of all elements. */
export function mean(tape: Tape, x: Tensor): Tensor {
  return weightedSum(tape, x, new Float64Array(x.size).fill(1 / x.size));
}
