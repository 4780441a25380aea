import type { Tensor } from '../tensor.js';
import { expectSameShape } from './check.js';
import type { Tape } from './tape.js';

/** out = a + b (equal shapes). */
export function add(tape: Tape, a: Tensor, b: Tensor): Tensor {
  return addScaled(tape, a, b, 1);
}

/** out = a + alpha * b (equal shapes): residual connections and LoRA's scaled update. */
export function addScaled(tape: Tape, a: Tensor, b: Tensor, alpha: number): Tensor {
  expectSameShape('add', a, b);
  const k = tape.kernels;
  const out = tape.output(a.shape, [a, b]);
  if (alpha === 1) k.add(a.data, b.data, out.data);
  else {
    out.data.set(a.data);
    k.axpy(alpha, b.data, out.data);
  }
  tape.onBackward(out, () => {
    const g = out.grad!;
    if (a.requiresGrad) k.axpy(1, g, tape.gradOf(a));
    if (b.requiresGrad) k.axpy(alpha, g, tape.gradOf(b));
  });
  return out;
}

/** out = a * b elementwise (equal shapes). */
export function mul(tape: Tape, a: Tensor, b: Tensor): Tensor {
  expectSameShape('mul', a, b);
  const k = tape.kernels;
  const out = tape.output(a.shape, [a, b]);
  k.mul(a.data, b.data, out.data);
  tape.onBackward(out, () => {
    const g = out.grad!;
    const tmp = tape.temp(g.length);
    if (a.requiresGrad) {
      k.mul(g, b.data, tmp);
      k.axpy(1, tmp, tape.gradOf(a));
    }
    if (b.requiresGrad) {
      k.mul(g, a.data, tmp);
      k.axpy(1, tmp, tape.gradOf(b));
    }
    tape.release(tmp);
  });
  return out;
}

/** out = alpha * x. */
export function scale(tape: Tape, x: Tensor, alpha: number): Tensor {
  const k = tape.kernels;
  const out = tape.tensor(x.shape, [x]);
  k.axpy(alpha, x.data, out.data);
  tape.onBackward(out, () => k.axpy(alpha, out.grad!, tape.gradOf(x)));
  return out;
}
