import { performance } from 'node:perf_hooks';
import { Rng } from '../../util/rng.js';
import type { Kernels } from './types.js';

/** A matmul shape, written m x k x n (C[m x n] = op(A)[m x k] op(B)[k x n]). */
export interface MatmulShape {
  readonly m: number;
  readonly k: number;
  readonly n: number;
  readonly transA?: boolean;
  readonly transB?: boolean;
}

export interface MatmulMeasurement extends MatmulShape {
  readonly kernels: string;
  readonly threads: number;
  /** Median milliseconds of one call. */
  readonly ms: number;
  readonly gflops: number;
}

/**
 * Median time of one matmul over `runs` timed batches (each at least `minBatchMs` long, after
 * one warm-up call), on operands allocated in the kernels' own memory. Batches rather than
 * single calls because one 256^3 product takes well under a millisecond.
 *
 *   measureMatmul(kernels, { m: 256, k: 256, n: 256 }).gflops
 */
export function measureMatmul(kernels: Kernels, shape: MatmulShape, options: { runs?: number; minBatchMs?: number } = {}): MatmulMeasurement {
  const { runs = 5, minBatchMs = 30 } = options;
  const { m, k, n } = shape;
  const rng = new Rng(7);
  const a = kernels.alloc(m * k);
  const b = kernels.alloc(k * n);
  const c = kernels.alloc(m * n);
  for (const x of [a, b]) for (let i = 0; i < x.length; i++) x[i] = rng.nextU32() / 2 ** 32 - 0.5;
  const args = { a, b, c, m, n, k, transA: shape.transA ?? false, transB: shape.transB ?? false };
  kernels.matmul(args);
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    let calls = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      kernels.matmul(args);
      calls++;
      elapsed = performance.now() - start;
    } while (elapsed < minBatchMs);
    times.push(elapsed / calls);
  }
  for (const x of [a, b, c]) kernels.free(x);
  times.sort((x, y) => x - y);
  const ms = times[Math.floor(times.length / 2)]!;
  return { ...shape, kernels: kernels.name, threads: kernels.threads, ms, gflops: (2 * m * n * k) / (ms * 1e6) };
}
