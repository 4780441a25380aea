/**
 * Plain tensor data as it travels to and from files. The IO layer never needs the engine's
 * Tensor class: a model exposes its parameters as `name -> Tensor`, and saving or loading
 * converts to and from this shape (`{ shape, data }`, row-major float32), so checkpoints do not
 * depend on autograd or kernels.
 *
 * Names are Hugging Face names (see src/engine/model/llama-config.ts), e.g.
 * `model.layers.0.self_attn.q_proj.weight`.
 */
export interface NamedTensor {
  /** Dimensions, outermost first (row-major). `[]` is a scalar. */
  readonly shape: readonly number[];
  /** Row-major values; length = product of shape. */
  readonly data: Float32Array;
  /**
   * How a writer stores it: 'F32' (default), or 'BF16' (rounded to nearest even, as torch
   * does; exact for values that are bf16 already, such as a bf16 base's weights).
   */
  readonly dtype?: 'F32' | 'BF16';
}

/** Tensors by name. Iteration order is irrelevant: writers sort names. */
export type TensorMap = ReadonlyMap<string, NamedTensor>;

/** The number of elements of a shape (1 for a scalar). */
export function shapeSize(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}
