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
    // The kernel overwrites both outputs: an input with no gradient yet receives its own
    // directly; otherwise (or without requiresGrad) a temporary, added in afterwards.
    const targets = [gate, up].map((t) => {
      const sink = t.requiresGrad ? tape.gradSink(t) : null;
      return { sink, out: sink && !sink.accumulate ? sink.grad : tape.temp(t.size) };
    });
    k.swigluBackward(gate.data, up.data, out.grad!, targets[0]!.out, targets[1]!.out);
    for (const { sink, out: d } of targets) {
      if (sink && !sink.accumulate) continue;
      if (sink) k.axpy(1, d, sink.grad);
      tape.release(d);
    }
  });
  return out;
}
