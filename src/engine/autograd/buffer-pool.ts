import type { Kernels } from '../kernels/types.js';

/**
 * Recycles kernel arrays by size class. A training loop repeats the same shapes every
 * step, so a pool shared by successive tapes turns nearly every allocation of a step into
 * a reuse: no allocator search, no fresh pages to fault in and, for buffers that are fully
 * overwritten anyway, no zero-filling. Arrays handed out may hold old values unless `zero`
 * is asked for.
 *
 * Lengths round up to a class (eight per doubling, so at most 12.5% unused), and a request
 * gets a view of its exact length on a pooled array of its class: the micro-batches of an RL
 * update differ in shape by a few rows (prompt and batch lengths vary), and exact lengths
 * would allocate almost every array of every micro-batch afresh (measured: 13% of an update
 * at the default run's shape, `troupe bench engine --profile`). The values computed do not
 * change: an op never reads past its array's length.
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
  /** The pooled array behind each view handed out (a view of a shorter length). */
  private readonly bases = new WeakMap<Float32Array, Float32Array>();
  private pooled = 0;

  constructor(kernels: Kernels, options: { maxBytes?: number } = {}) {
    this.kernels = kernels;
    this.maxBytes = options.maxBytes ?? 2 ** 30;
  }

  /** An array of `length` floats; zero-filled when `zero`, otherwise with unspecified values. */
  take(length: number, zero: boolean): Float32Array {
    const size = sizeClass(length);
    const reused = this.lists.get(size)?.pop();
    if (!reused) {
      // managed: every array of a pool comes back to it or to kernels.free (give, trim, clear).
      if (size === length) return this.kernels.alloc(length, zero, true);
      const base = this.kernels.alloc(size, false, true);
      const view = base.subarray(0, length);
      this.bases.set(view, base);
      if (zero) view.fill(0);
      return view;
    }
    this.pooled -= reused.length * 4;
    const view = reused.length === length ? reused : reused.subarray(0, length);
    if (view !== reused) this.bases.set(view, reused);
    if (zero) view.fill(0);
    return view;
  }

  give(array: Float32Array): void {
    const base = this.bases.get(array) ?? array;
    if (this.pooled + base.length * 4 > this.maxBytes) {
      this.kernels.free(base);
      return;
    }
    // An array of no class length (given from outside) serves the largest class it holds.
    const size = sizeClassBelow(base.length);
    let list = this.lists.get(size);
    if (!list) this.lists.set(size, (list = []));
    list.push(base);
    this.pooled += base.length * 4;
  }

  /** Bytes currently held for reuse. */
  get pooledBytes(): number {
    return this.pooled;
  }

  /** Returns pooled arrays to the kernels, the largest first, until at most `maxBytes` stay. */
  trim(maxBytes: number): void {
    if (this.pooled <= maxBytes) return;
    for (const size of [...this.lists.keys()].sort((a, b) => b - a)) {
      const list = this.lists.get(size)!;
      while (list.length > 0 && this.pooled > maxBytes) {
        const array = list.pop()!;
        this.pooled -= array.length * 4;
        this.kernels.free(array);
      }
      if (list.length === 0) this.lists.delete(size);
      if (this.pooled <= maxBytes) return;
    }
  }

  /** Returns every pooled array to the kernels. */
  clear(): void {
    for (const list of this.lists.values()) for (const a of list) this.kernels.free(a);
    this.lists.clear();
    this.pooled = 0;
  }
}

/** The smallest class length >= n: below 16 every length, then m * 2^e for m in 8..15. */
export function sizeClass(n: number): number {
  if (n < 16) return n;
  const step = 2 ** (Math.floor(Math.log2(n)) - 3);
  return Math.ceil(n / step) * step;
}

/** The largest class length <= n. */
function sizeClassBelow(n: number): number {
  if (n < 16) return n;
  const step = 2 ** (Math.floor(Math.log2(n)) - 3);
  return Math.floor(n / step) * step;
}
