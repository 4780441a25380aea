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
    if (b.requiresGrad) {
      const db = alpha === 1 ? tape.gradSink(b) : { grad: tape.gradOf(b), accumulate: true };
      if (db.accumulate) k.axpy(alpha, g, db.grad);
      else db.grad.set(g);
    }
    // Last: a may take over out's gradient array (a residual stream passes it on unchanged).
    if (a.requiresGrad && !tape.moveGrad(out, a)) k.axpy(1, g, tape.gradOf(a));
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
    for (const [x, other] of [[a, b], [b, a]] as const) {
      if (!x.requiresGrad) continue;
      const dx = tape.gradSink(x);
      if (!dx.accumulate) k.mul(g, other.data, dx.grad);
      else {
        k.mul(g, other.data, tmp);
        k.axpy(1, tmp, dx.grad);
      }
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
