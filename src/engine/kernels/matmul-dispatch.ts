import { checkMatmul } from './check-shapes.js';
import type { CallArena } from './call-arena.js';
import type { ThreadPool } from './thread-pool.js';
import type { MatmulArgs } from './types.js';
import { ACCUMULATE, TRANS_A, TRANS_B, type KernelExports } from './wasm-module.js';

/** Cache blocking of matmul_block (see wat/matmul.wat): k depth, row block, column block. */
export const BLOCKING = { kc: 256, mc: 64, nc: 512 } as const;

/** Bytes of packing scratch one thread needs for BLOCKING. */
export const MATMUL_SCRATCH_BYTES = 128 + 4 * BLOCKING.kc * (BLOCKING.mc + BLOCKING.nc);

export interface MatmulContext {
  readonly exports: KernelExports;
  readonly arena: CallArena;
  readonly pool: ThreadPool | null;
  /** Packing scratch of the calling thread. */
  readonly scratch: number;
  /** m * n * k at and above which the work is split across the two threads. */
  readonly parallelThreshold: number;
}

/**
 * Routes one matmul: 1-3 output rows to the in-place matrix-vector kernel; large products
 * split across the calling thread and the worker by output rows (tall C) or columns (wide
 * C), on tile boundaries. Every output element is summed in the same order however the
 * work is split, so results are bit-identical for 1 and 2 threads.
 */
export function dispatchMatmul(ctx: MatmulContext, args: MatmulArgs): void {
  checkMatmul(args);
  const { m, n, k, transA = false, transB = false, accumulate = false } = args;
  if (m === 0 || n === 0) return;
  if (k === 0) {
    if (!accumulate) args.c.fill(0, 0, m * n);
    return;
  }
  const flags = (transA ? TRANS_A : 0) | (transB ? TRANS_B : 0) | (accumulate ? ACCUMULATE : 0);
  const { exports, arena, pool } = ctx;
  try {
    const a = arena.ptr(args.a, m * k, false);
    const b = arena.ptr(args.b, k * n, false);
    const c = arena.ptr(args.c, m * n, true);
    if (m < 4 && (!transA || m === 1)) {
      exports.matmul_rows(a, b, c, m, n, k, flags);
      return;
    }
    const { kc, mc, nc } = BLOCKING;
    const split = pool && m * n * k >= ctx.parallelThreshold ? splitPoint(m, n) : null;
    if (!split) {
      exports.matmul_block(a, b, c, m, n, k, flags, 0, m, 0, n, ctx.scratch, kc, mc, nc);
      return;
    }
    const worker = split.byRows ? [split.at, m, 0, n] : [0, m, split.at, n];
    pool!.post([a, b, c, m, n, k, flags, ...worker, kc, mc, nc]);
    try {
      if (split.byRows) exports.matmul_block(a, b, c, m, n, k, flags, 0, split.at, 0, n, ctx.scratch, kc, mc, nc);
      else exports.matmul_block(a, b, c, m, n, k, flags, 0, m, 0, split.at, ctx.scratch, kc, mc, nc);
    } finally {
      pool!.wait();
    }
  } finally {
    arena.finish();
  }
}

/** Where to cut C in two: rows on a 4-row tile boundary, or columns on an 8-column one. */
function splitPoint(m: number, n: number): { byRows: boolean; at: number } | null {
  if (m > n) {
    const at = Math.ceil(m / 8) * 4;
    return at < m ? { byRows: true, at } : null;
  }
  const at = Math.ceil(n / 16) * 8;
  return at < n ? { byRows: false, at } : null;
}
