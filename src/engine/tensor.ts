import { TroupeError } from '../util/errors.js';
import type { Kernels } from './kernels/types.js';

/**
 * A row-major float32 array with a shape and an optional gradient of the same size.
 *
 * Lifetimes: parameters (and optimizer state) are long-lived and freed by their owner
 * (`LlamaModel.dispose`, `AdamW.dispose`); the intermediates of one step are created by a
 * `Tape`, which frees them all in `tape.dispose()`. Data always comes from `kernels.alloc`, so
 * the WASM kernels work on it without copies.
 */
export class Tensor {
  readonly shape: readonly number[];
  readonly data: Float32Array;
  /** d(loss)/d(this), same layout as data; null until something accumulates into it. */
  grad: Float32Array | null = null;
  /** Whether backward should compute a gradient for this tensor (false for frozen weights). */
  requiresGrad: boolean;

  constructor(shape: readonly number[], data: Float32Array, requiresGrad = false) {
    const size = shapeSize(shape);
    if (data.length !== size) {
      throw new TroupeError('engine', `Tensor data has ${data.length} elements but shape [${shape.join(', ')}] needs ${size}; pass data of the right size`);
    }
    this.shape = Object.freeze([...shape]);
    this.data = data;
    this.requiresGrad = requiresGrad;
  }

  get size(): number {
    return this.data.length;
  }

  /** A zero-filled tensor in kernel memory (the caller owns it and must `free` it). */
  static zeros(kernels: Kernels, shape: readonly number[], requiresGrad = false): Tensor {
    return new Tensor(shape, kernels.alloc(shapeSize(shape)), requiresGrad);
  }

  /** A long-lived parameter: its gradient buffer is allocated up front when trainable. */
  static parameter(kernels: Kernels, shape: readonly number[], requiresGrad = true): Tensor {
    const t = Tensor.zeros(kernels, shape, requiresGrad);
    if (requiresGrad) t.grad = kernels.alloc(t.size);
    return t;
  }

  /** Frees data and gradient; the tensor must not be used afterwards. */
  free(kernels: Kernels): void {
    kernels.free(this.data);
    if (this.grad) kernels.free(this.grad);
    this.grad = null;
  }
}

export function shapeSize(shape: readonly number[]): number {
  let size = 1;
  for (const d of shape) {
    if (!Number.isInteger(d) || d < 0) {
      throw new TroupeError('engine', `invalid tensor shape [${shape.join(', ')}]: every dimension must be a non-negative integer`);
    }
    size *= d;
  }
  return size;
}
