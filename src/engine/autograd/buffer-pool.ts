import type { Kernels } from '../kernels/types.js';

/**
 * Recycles kernel arrays by exact length. A training loop repeats the same shapes every
 * step, so a pool shared by successive tapes turns nearly every allocation of a step into
 * a reuse: no allocator search and, for buffers that are fully overwritten anyway, no
 * zero-filling. Arrays handed out may hold old values unless `zero` is asked for.
 *
 *   const pool = new BufferPool(kernels);
 *   for (...) { const tape = new Tape(kernels, { pool }); ...; tape.dispose(); }
 *   pool.clear();
 */
export class BufferPool {
  readonly kernels: Kernels;
  /** Arrays beyond this many pooled bytes (default 1 GiB) go back to the kernels instead. */
  readonly maxBytes: number;
  private readonly lists = new Map<number, Float32Array[]>();
  private pooled = 0;

  constructor(kernels: Kernels, options: { maxBytes?: number } = {}) {
    this.kernels = kernels;
    this.maxBytes = options.maxBytes ?? 2 ** 30;
  }

  /** An array of `length` floats; zero-filled when `zero`, otherwise with unspecified values. */
  take(length: number, zero: boolean): Float32Array {
    const reused = this.lists.get(length)?.pop();
    if (!reused) return this.kernels.alloc(length, zero);
    this.pooled -= length * 4;
    if (zero) reused.fill(0);
    return reused;
  }

  give(array: Float32Array): void {
    if (this.pooled + array.length * 4 > this.maxBytes) {
      this.kernels.free(array);
      return;
    }
    let list = this.lists.get(array.length);
    if (!list) this.lists.set(array.length, (list = []));
    list.push(array);
    this.pooled += array.length * 4;
  }

  /** Bytes currently held for reuse. */
  get pooledBytes(): number {
    return this.pooled;
  }

  /** Returns every pooled array to the kernels. */
  clear(): void {
    for (const list of this.lists.values()) for (const a of list) this.kernels.free(a);
    this.lists.clear();
    this.pooled = 0;
  }
}
