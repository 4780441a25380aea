import { roundToBf16 } from '../io/half-float.js';
import { checkMatmul } from './check-shapes.js';
import type { CallArena } from './call-arena.js';
import { MAX_CHUNKS, type ThreadPool } from './thread-pool.js';
import type { MatmulArgs, MatmulBf16Args } from './types.js';
import { ACCUMULATE, BF16_B, TRANS_A, TRANS_B, type KernelExports } from './wasm-module.js';

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
  /** m * n * k at and above which the work is split across the threads. */
  readonly parallelThreshold: number;
  /** n * k from which a one-row x W^T is split across the threads. */
  readonly matvecSplitFrom: number;
}

/**
 * Default n * k from which a one-row x W^T (decoding) is split across the threads:
 * never. Decoding streams the weights from L3, and on the development machine (2 vCPUs
 * under KVM) two threads together streamed no faster than one (20-27 GB/s either way for
 * 256x256 up to 4096x1024 weights) while the hand-off cost a few microseconds per call:
 * a token's 28 matvecs ran 14-16% slower split. `matvecSplitFrom` turns it on where the cores
 * have their own bandwidth.
 */
export const MATVEC_SPLIT_DEFAULT = Number.POSITIVE_INFINITY;

/**
 * Routes one matmul: 1-3 output rows to the in-place matrix-vector kernel; large products
 * go in chunks of output rows (tall C) or columns (wide C), on tile boundaries, to the
 * threads. Every output element is summed in the same order however the work is split, so
 * results are bit-identical for every thread count.
 */
export function dispatchMatmul(ctx: MatmulContext, args: MatmulArgs): void {
  checkMatmul(args);
  dispatch(ctx, args, args.transA ?? false, 0);
}

/**
 * The same for a bf16 b (flag BF16_B): the kernels widen it while packing or reading it.
 * roundA rounds a copy of a to bf16 first (WebAssembly has no bf16 product instruction).
 */
export function dispatchMatmulBf16(ctx: MatmulContext, args: MatmulBf16Args): void {
  checkMatmul(args, 'matmulBf16');
  if (!args.roundA) return dispatch(ctx, args, false, BF16_B);
  const rounded = new Float32Array(args.m * args.k);
  roundToBf16(args.a.subarray(0, rounded.length), rounded);
  dispatch(ctx, { ...args, a: rounded }, false, BF16_B);
}

function dispatch(ctx: MatmulContext, args: MatmulArgs | MatmulBf16Args, transA: boolean, bf16Flag: number): void {
  const { m, n, k, transB = false, accumulate = false } = args;
  if (m === 0 || n === 0) return;
  if (k === 0) {
    if (!accumulate) args.c.fill(0, 0, m * n);
    return;
  }
  const flags = (transA ? TRANS_A : 0) | (transB ? TRANS_B : 0) | (accumulate ? ACCUMULATE : 0) | bf16Flag;
  const { exports, arena, pool } = ctx;
  try {
    const a = arena.ptr(args.a, m * k, false);
    const b = arena.ptr(args.b, k * n, false);
    const c = arena.ptr(args.c, m * n, true);
    if (m < 4 && (!transA || m === 1)) {
      if (pool && m === 1 && transB && n * k >= ctx.matvecSplitFrom && pool.shouldSplit(n * k)) {
        // Each output is one dot product whichever thread computes it: bit-identical.
        pool.runMatmul(exports, ctx.scratch, { kind: 'rows', args: [a, b, c, m, n, k, flags], ...matvecChunking(n, k, pool.threads), blocking: [0, 0, 0] });
      } else {
        exports.matmul_rows(a, b, c, m, n, k, flags);
      }
      return;
    }
    const { kc, mc, nc } = BLOCKING;
    if (!pool || m * n * k < ctx.parallelThreshold || !pool.shouldSplit(m * n * k)) {
      exports.matmul_block(a, b, c, m, n, k, flags, 0, m, 0, n, ctx.scratch, kc, mc, nc);
      return;
    }
    pool.runMatmul(exports, ctx.scratch, { args: [a, b, c, m, n, k, flags], ...chunking(m, n, k, pool.threads), blocking: [kc, mc, nc] });
  } finally {
    arena.finish();
  }
}

/**
 * Cuts C into chunks of whole tiles: by rows (4-row tiles) when C is tall, else by columns
 * (8-column tiles). 2 to max(4, 2 x threads) chunks of at least ~2M multiply-adds each:
 * enough to balance the threads, few enough that re-packing the shared operand per chunk
 * stays cheap. (Measured in CPU time on one thread, 8 chunks cost 15-35% at 256^3 and
 * 2048x1024x256; 4 chunks cost 0-5%.) The chunk boundaries never change a sum: the tile
 * grid starts at row and column 0 whatever the chunks, and each tile sums over k in order.
 */
export function chunking(m: number, n: number, k: number, threads = 2): { byRows: boolean; chunkSize: number; chunks: number } {
  const byRows = m > n;
  const tile = byRows ? 4 : 8;
  const extent = byRows ? m : n;
  const units = Math.ceil(extent / tile);
  const most = Math.min(MAX_CHUNKS, Math.max(4, 2 * threads));
  const wanted = Math.max(2, Math.min(most, Math.floor((m * n * k) / 2 ** 21)));
  const chunkSize = Math.ceil(units / Math.min(wanted, units)) * tile;
  return { byRows, chunkSize, chunks: Math.ceil(extent / chunkSize) };
}

/**
 * Column chunks of a one-row x W^T: multiples of 16 outputs, 2 to max(8, 2 x threads)
 * chunks of at least 16K multiply-adds (a few microseconds), so a late worker only takes
 * the last ones.
 */
export function matvecChunking(n: number, k: number, threads = 2): { byRows: boolean; chunkSize: number; chunks: number } {
  const most = Math.min(MAX_CHUNKS, Math.max(8, 2 * threads));
  const wanted = Math.max(2, Math.min(most, Math.floor((n * k) / 2 ** 14)));
  const chunkSize = Math.max(16, Math.ceil(n / wanted / 16) * 16);
  return { byRows: false, chunkSize, chunks: Math.ceil(n / chunkSize) };
}
