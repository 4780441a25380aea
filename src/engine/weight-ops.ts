/**
 * The one place that reads a weight matrix whichever way it is stored (float32, or bf16 for
 * a frozen base; see StorageDtype in tensor.ts). The autograd ops (linear, embedding), the
 * decode path (llama-inference) and anything else that multiplies by or gathers from a
 * model weight go through these, so storage is decided here and nowhere else.
 *
 *   weightMatmul(kernels, { a: x, w, c: y, m: rows, n: out, k: in, transB: true }); // y = x W^T
 *   weightMatmul(kernels, { a: dy, w, c: dx, m: rows, n: in, k: out });            // dx = dy W
 *   gatherWeightRows(embedTokens, ids, out);                                          // out[i] = W[ids[i]]
 */
import { TroupeError } from '../util/errors.js';
import { bf16ToF32 } from './io/half-float.js';
import type { Kernels, MatmulArgs } from './kernels/types.js';
import type { Tensor } from './tensor.js';

/** A matmul whose right-hand side is the weight tensor `w` (MatmulArgs with b = w). */
export interface WeightMatmulArgs extends Omit<MatmulArgs, 'b' | 'transA'> {
  readonly w: Tensor;
}

/**
 * c (+)= a op(W): float32 weights go to `matmul`, bf16 weights to `matmulBf16`, with the
 * activations rounded to bf16 when the kernels' bf16Matmul mode is `fast`.
 */
export function weightMatmul(kernels: Kernels, args: WeightMatmulArgs): void {
  const { w, ...rest } = args;
  if (w.dtype === 'bf16') kernels.matmulBf16({ ...rest, b: w.bits, roundA: kernels.bf16Matmul === 'fast' });
  else kernels.matmul({ ...rest, b: w.data });
}

/**
 * out[i*d .. (i+1)*d) = row rows[i] of the (V, d) weight `w`, as float32 (bf16 rows are
 * widened, exactly). Rows must be valid indexes (callers check them with their own message).
 */
export function gatherWeightRows(w: Tensor, rows: ArrayLike<number>, out: Float32Array): void {
  const d = w.shape[w.shape.length - 1]!;
  if (out.length < rows.length * d) {
    throw new TroupeError('engine', `gatherWeightRows: out has ${out.length} elements but ${rows.length} rows of ${d} need ${rows.length * d}`);
  }
  const bf16 = w.dtype === 'bf16';
  const source = bf16 ? w.bits : w.data;
  for (let i = 0; i < rows.length; i++) {
    const at = rows[i]! * d;
    const target = out.subarray(i * d, i * d + d);
    if (bf16) bf16ToF32((source as Uint16Array).subarray(at, at + d), target);
    else target.set((source as Float32Array).subarray(at, at + d));
  }
}

/** The weight's values as a new float32 array (a copy: for saving or comparing, not for math). */
export function weightToF32(w: Tensor): Float32Array {
  if (w.dtype === 'f32') return w.data.slice();
  const out = new Float32Array(w.size);
  bf16ToF32(w.bits, out);
  return out;
}
