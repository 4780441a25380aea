import { TroupeError } from '../util/errors.js';
import type { Kernels } from './kernels/types.js';

/**
 * How a tensor's values are stored. `f32`: a Float32Array. `bf16`: bfloat16 bit patterns (the
 * upper 16 bits of a float32) in a Uint16Array, half the memory; used for the big 2-D weights of
 * a frozen base model (embeddings, linear weights, lm_head), which kernels widen to float32
 * per tile (`Kernels.matmulBf16`, see src/engine/weight-ops.ts). A bf16 tensor never trains.
 */
export type StorageDtype = 'f32' | 'bf16';

/** bf16 values in kernel memory: the bits, and the allocation behind them (for `free`). */
export interface Bf16Storage {
  readonly bits: Uint16Array;
  /** The kernels' allocation the bits live in (ceil(size / 2) floats). */
  readonly backing: Float32Array;
}

/**
 * A row-major array with a shape and an optional gradient of the same size. Float32 unless
 * made with `Tensor.bf16` (see StorageDtype).
 *
 * Lifetimes: parameters (and optimizer state) are long-lived and freed by their owner
 * (`LlamaModel.dispose`, `AdamW.dispose`); the intermediates of one step are created by a
 * `Tape`, which frees them all in `tape.dispose()`. Data always comes from `kernels.alloc`, so
 * the WASM kernels work on it without copies.
 */
export class Tensor {
  readonly shape: readonly number[];
  readonly dtype: StorageDtype;
  readonly size: number;
  private readonly f32: Float32Array | null;
  private readonly bf16: Bf16Storage | null;
  /** d(loss)/d(this), float32, same layout as data; null until something accumulates into it. */
  grad: Float32Array | null = null;
  /** Whether backward should compute a gradient for this tensor (false for frozen weights). */
  requiresGrad: boolean;

  constructor(shape: readonly number[], data: Float32Array | Bf16Storage, requiresGrad = false) {
    const size = shapeSize(shape);
    const isF32 = data instanceof Float32Array;
    const length = isF32 ? data.length : data.bits.length;
    if (length !== size) {
      throw new TroupeError('engine', `Tensor data has ${length} elements but shape [${shape.join(', ')}] needs ${size}; pass data of the right size`);
    }
    if (!isF32 && requiresGrad) {
      throw new TroupeError('engine', `a bf16 tensor [${shape.join(', ')}] cannot require gradients; train in float32 (load the model with baseDtype 'f32')`);
    }
    this.shape = Object.freeze([...shape]);
    this.size = size;
    this.dtype = isF32 ? 'f32' : 'bf16';
    this.f32 = isF32 ? data : null;
    this.bf16 = isF32 ? null : data;
    this.requiresGrad = requiresGrad;
  }

  /** The float32 values. A bf16 tensor has none: use `bits`, or the helpers of weight-ops.ts. */
  get data(): Float32Array {
    if (this.f32 === null) {
      throw new TroupeError('engine', `this [${this.shape.join(', ')}] tensor is stored as bf16 and has no float32 data; read it through weight-ops.ts (weightMatmul, gatherWeightRows, weightToF32) or load the model with baseDtype 'f32'`);
    }
    return this.f32;
  }

  /** The bf16 bit patterns of a bf16 tensor (throws for float32 tensors). */
  get bits(): Uint16Array {
    if (this.bf16 === null) throw new TroupeError('engine', `this [${this.shape.join(', ')}] tensor is float32, not bf16; use data`);
    return this.bf16.bits;
  }

  /** A zero-filled tensor in kernel memory (the caller owns it and must `free` it). */
  static zeros(kernels: Kernels, shape: readonly number[], requiresGrad = false): Tensor {
    return new Tensor(shape, kernels.alloc(shapeSize(shape)), requiresGrad);
  }

  /** A zero-filled bf16 tensor in kernel memory (never trainable); fill it through `bits`. */
  static bf16(kernels: Kernels, shape: readonly number[]): Tensor {
    const size = shapeSize(shape);
    const backing = kernels.alloc(Math.ceil(size / 2));
    return new Tensor(shape, { bits: new Uint16Array(backing.buffer, backing.byteOffset, size), backing });
  }

  /** A long-lived parameter: its gradient buffer is allocated up front when trainable. */
  static parameter(kernels: Kernels, shape: readonly number[], requiresGrad = true): Tensor {
    const t = Tensor.zeros(kernels, shape, requiresGrad);
    if (requiresGrad) t.grad = kernels.alloc(t.size);
    return t;
  }

  /** Frees data and gradient; the tensor must not be used afterwards. */
  free(kernels: Kernels): void {
    kernels.free(this.f32 ?? this.bf16!.backing);
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
