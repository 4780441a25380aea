import type { Tensor } from '../tensor.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

/**
 * Rotary position embedding of x (tokens, heads * headDim) laid out [tokens, heads, headDim],
 * token t at positions[t] (HF Llama rotate_half convention), pair i turning by
 * positions[t] * invFreq[i] (model/rope-frequencies.ts builds the table). A rotation is
 * orthogonal, so the backward is the inverse rotation of the output gradient.
 */
export function rope(tape: Tape, x: Tensor, options: { positions: Int32Array; heads: number; headDim: number; invFreq: Float32Array }): Tensor {
  const { positions, heads, headDim, invFreq } = options;
  const [tokens, width] = asMatrix('rope', 'x', x);
  expectEqual('rope', 'the row width (heads * headDim)', width, heads * headDim);
  expectEqual('rope', 'the number of positions', positions.length, tokens);
  const k = tape.kernels;
  const out = tape.output(x.shape, [x]);
  out.data.set(x.data);
  k.rope(out.data, positions, tokens, heads, headDim, invFreq, false);
  tape.onBackward(out, () => {
    // While x has no gradient yet it takes over out's and rotates it in place.
    if (tape.moveGrad(out, x)) {
      k.rope(x.grad!, positions, tokens, heads, headDim, invFreq, true);
      return;
    }
    const g = tape.temp(x.size);
    g.set(out.grad!);
    k.rope(g, positions, tokens, heads, headDim, invFreq, true);
    k.axpy(1, g, tape.gradOf(x));
    tape.release(g);
  });
  return out;
}
