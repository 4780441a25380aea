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
    // The kernel overwrites both: an input with no gradient yet receives it directly.
    const sinks = [gate, up].map((t) => (t.requiresGrad ? tape.gradSink(t) : null));
    const [dGate, dUp] = sinks.map((s, i) => (s && !s.accumulate ? s.grad : tape.temp([gate, up][i]!.size))) as [Float32Array, Float32Array];
    k.swigluBackward(gate.data, up.data, out.grad!, dGate, dUp);
    [dGate, dUp].forEach((d, i) => {
      const s = sinks[i];
      if (s && !s.accumulate) return;
      if (s) k.axpy(1, d, s.grad);
      tape.release(d);
    });
  });
  return out;
}
