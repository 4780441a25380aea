/**
 * Which parameters may be stored as bf16, and conversions between storages. A frozen base
 * keeps its big 2-D weights (embeddings, the seven linear weights of each layer, lm_head) in
 * bf16, half the memory; 1-D parameters (norm weights, biases) stay float32: they are tiny
 * and the kernels read them as float32.
 */
import { TroupeError } from '../../util/errors.js';
import { bf16ToF32, f32ToBf16 } from '../io/half-float.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor, type StorageDtype } from '../tensor.js';

/** The storage a parameter of this shape gets when the base's big weights use `dtype`. */
export function storageFor(shape: readonly number[], dtype: StorageDtype): StorageDtype {
  return dtype === 'bf16' && shape.length === 2 ? 'bf16' : 'f32';
}

/**
 * A new parameter tensor holding `source`'s values in `dtype` storage: bf16 -> f32 is exact,
 * f32 -> bf16 rounds to nearest even. `trainable` allocates a gradient (float32 only). The
 * caller still owns (and frees) `source`.
 */
export function convertParameter(kernels: Kernels, source: Tensor, dtype: StorageDtype, trainable: boolean): Tensor {
  if (dtype === 'bf16' && trainable) {
    throw new TroupeError('engine', `a bf16 parameter [${source.shape.join(', ')}] cannot be trainable; freeze the base (LoRA) or keep it float32`);
  }
  if (dtype === 'bf16') {
    const t = Tensor.bf16(kernels, source.shape);
    if (source.dtype === 'bf16') t.bits.set(source.bits);
    else f32ToBf16(source.data, t.bits);
    return t;
  }
  const t = Tensor.parameter(kernels, source.shape, trainable);
  if (source.dtype === 'bf16') bf16ToF32(source.bits, t.data);
  else t.data.set(source.data);
  return t;
}

/** Replaces each parameter of `parameters` whose storage should change, freeing the old one. */
export function restoreParameters(kernels: Kernels, parameters: Map<string, Tensor>, dtype: StorageDtype, trainable: boolean): void {
  for (const [name, t] of parameters) {
    const wanted = storageFor(t.shape, dtype);
    if (wanted === t.dtype) continue;
    parameters.set(name, convertParameter(kernels, t, wanted, trainable && wanted === 'f32'));
    t.free(kernels);
  }
}
