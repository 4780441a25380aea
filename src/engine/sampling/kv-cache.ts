/**
 * The keys and values one sequence has produced so far, per layer, for decoding without
 * recomputing the past. Layout per layer: head-major [kvHeads][capacity][headDim], so the
 * keys of one kv head over positions 0..S-1 are one contiguous (S, headDim) matrix that the
 * matmul kernels read directly.
 *
 * A prompt is prefilled once into its own cache; each of its K continuations starts from a
 * copy of it (`copyFrom`, a memcpy of prompt-length rows: far cheaper than one decode step)
 * and then grows on its own.
 *
 * The arrays come from a pool (`CacheArrays`, a BufferPool in LlamaInference) and go back to
 * it on `free()`, unzeroed: a rollout opens and closes thousands of small caches a step, and a
 * fresh native array each time (an external ArrayBuffer, its finalizer, its share of garbage
 * collections) cost more than the decode's attention at the learning runs' shape. A recycled
 * array may hold an earlier sequence's rows past `length`; nothing reads them, since every
 * read (`head`, `copyFrom`) stops at positions already written for this sequence.
 */
import { TroupeError } from '../../util/errors.js';

export interface CacheShape {
  readonly layers: number;
  readonly kvHeads: number;
  readonly headDim: number;
}

/** Where a cache's arrays come from and go back to (BufferPool has this shape). */
export interface CacheArrays {
  take(length: number, zero: boolean): Float32Array;
  give(array: Float32Array): void;
}

export class SequenceCache {
  readonly shape: CacheShape;
  readonly capacity: number;
  /** Positions 0..length-1 hold keys and values. */
  length = 0;
  /** Per layer, head-major keys / values (after RoPE for keys). */
  readonly k: Float32Array[];
  readonly v: Float32Array[];
  private readonly arrays: CacheArrays;
  private freed = false;

  constructor(arrays: CacheArrays, shape: CacheShape, capacity: number) {
    this.shape = shape;
    this.capacity = capacity;
    this.arrays = arrays;
    const size = shape.kvHeads * capacity * shape.headDim;
    this.k = Array.from({ length: shape.layers }, () => arrays.take(size, false));
    this.v = Array.from({ length: shape.layers }, () => arrays.take(size, false));
  }

  /**
   * Writes `rows` consecutive positions from `position` on for one layer: row `from + t` of the
   * token-major k and v (rows of kvHeads * headDim) becomes position `position + t`. Copied an
   * element at a time: rows of a small model's kv head are a few floats, and a subarray and
   * `set` per head and row cost more than the copying (most of a prefill's JavaScript).
   */
  writeRows(layer: number, position: number, k: Float32Array, v: Float32Array, from: number, rows: number): void {
    if (position + rows > this.capacity) {
      throw new TroupeError('invariant', `internal invariant broken: KV cache write at position ${position + rows - 1} beyond capacity ${this.capacity}`);
    }
    const { kvHeads, headDim } = this.shape;
    const width = kvHeads * headDim;
    const kc = this.k[layer] as Float32Array;
    const vc = this.v[layer] as Float32Array;
    for (let g = 0; g < kvHeads; g++) {
      for (let t = 0; t < rows; t++) {
        const src = (from + t) * width + g * headDim;
        const dst = (g * this.capacity + position + t) * headDim;
        for (let i = 0; i < headDim; i++) {
          kc[dst + i] = k[src + i]!;
          vc[dst + i] = v[src + i]!;
        }
      }
    }
  }

  /** Keys and values of kv head `g` over positions 0..count-1, each (count, headDim). */
  head(layer: number, g: number, count: number): { k: Float32Array; v: Float32Array } {
    const start = g * this.capacity * this.shape.headDim;
    const end = start + count * this.shape.headDim;
    return { k: (this.k[layer] as Float32Array).subarray(start, end), v: (this.v[layer] as Float32Array).subarray(start, end) };
  }

  /** Makes this cache start as a copy of `source`'s first `source.length` positions. */
  copyFrom(source: SequenceCache): void {
    if (source.length > this.capacity) {
      throw new TroupeError('invariant', `internal invariant broken: copying ${source.length} cached positions into a cache of capacity ${this.capacity}`);
    }
    const { kvHeads, headDim, layers } = this.shape;
    for (let layer = 0; layer < layers; layer++) {
      for (let g = 0; g < kvHeads; g++) {
        const from = source.head(layer, g, source.length);
        const at = g * this.capacity * headDim;
        (this.k[layer] as Float32Array).set(from.k, at);
        (this.v[layer] as Float32Array).set(from.v, at);
      }
    }
    this.length = source.length;
  }

  /** Gives the arrays back to where they came from; the cache must not be used again. */
  free(): void {
    // Twice would hand the same arrays to two later caches.
    if (this.freed) return;
    this.freed = true;
    for (const a of this.k) this.arrays.give(a);
    for (const a of this.v) this.arrays.give(a);
  }
}
