import type { Tensor } from '../tensor.js';
import { expectSameShape } from './check.js';
import type { Tape } from './tape.js';

/** SwiGLU gate of the Llama MLP: silu(gate) * up, elementwise. */
export function swiglu(tape: Tape, gate: Tensor, up: Tensor): Tensor {
  expectSameShape('swiglu', gate, up);
  const k = tape.kernels;
  const out = tape.output(gate.shape, [gate, up]);
  k.swiglu(gate.data, up.data, out.data);
  tape.onBackward(out, () => {
    const dGate = tape.temp(gate.size);
    const dUp = tape.temp(up.size);
    k.swigluBackward(gate.data, up.data, out.grad!, dGate, dUp);
    if (gate.requiresGrad) k.axpy(1, dGate, tape.gradOf(gate));
    if (up.requiresGrad) k.axpy(1, dUp, tape.gradOf(up));
    tape.release(dGate);
    tape.release(dUp);
  });
  return out;
}
