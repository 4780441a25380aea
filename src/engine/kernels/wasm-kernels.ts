import { logSoftmaxGatherBackward, rowEntropies } from './reference.js';
import { type Bf16MatmulMode, bf16MatmulFromEnv } from './bf16-matmul-mode.js';
import { TroupeError } from '../../util/errors.js';
import { checkThreads, threadsFromEnv } from '../../util/thread-count.js';
import { CallArena } from './call-arena.js';
import { checkLogSoftmax, checkRmsNorm, checkRmsNormBackward, checkRope, checkRows, checkSameLength } from './check-shapes.js';
import { detectSimdFlavor, type SimdFlavor } from './feature-detect.js';
import { Heap } from './heap.js';
import { dispatchMatmul, dispatchMatmulBf16, MATMUL_SCRATCH_BYTES, MATVEC_SPLIT_DEFAULT, type MatmulContext } from './matmul-dispatch.js';
import { RopeTables } from './rope-table.js';
import { ThreadPool } from './thread-pool.js';
import type { Kernels } from './types.js';
import { compileKernelModule, type KernelExports } from './wasm-module.js';

export interface WasmKernelOptions {
  /** 1 = calling thread only; N = large matmuls split with N - 1 worker threads. Default:
   *  TROUPE_THREADS, else the cores this process may use. Results do not depend on it. */
  readonly threads?: number;
  /** 'auto' uses relaxed-SIMD FMA when the engine has it, else plain SIMD. */
  readonly simd?: 'auto' | SimdFlavor;
  /** m*n*k from which matmuls are split across the threads (measured: see bench/matmul-bench.ts). */
  readonly parallelThreshold?: number;
  /**
   * true (default): jobs under 2^25 multiply-adds use the worker only while it is awake and
   * not stalling (see ThreadPool.shouldSplit); false: always (tests of the split).
   */
  readonly adaptiveSplit?: boolean;
  /**
   * n*k from which a one-row x W^T (decoding) is split across the threads. Default: never
   * (MATVEC_SPLIT_DEFAULT); tests of the split set it low.
   */
  readonly matvecSplitFrom?: number;
  /** Products with bf16 weights (bf16-matmul-mode.ts); default TROUPE_BF16_MATMUL, else fast. */
  readonly bf16Matmul?: Bf16MatmulMode;
}

export interface WasmKernels extends Kernels {
  readonly simd: SimdFlavor;
  /** The heap (for tests and memory reports). */
  readonly heap: Heap;
  /** Direct access to the module's exports (test hooks such as exp_array). */
  readonly exports: KernelExports;
  /** Stops the worker threads. The kernels must not be used afterwards. */
  dispose(): Promise<void>;
}

/**
 * Below this m*n*k (4 MFLOP, ~100 us on one thread) a split saves less than the worker
 * wake-up costs (tens of microseconds, far more when other processes share the cores).
 */
export const DEFAULT_PARALLEL_THRESHOLD = 128 * 128 * 128;

/**
 * WebAssembly SIMD kernels over one shared heap. Arrays from `alloc` are used in place;
 * other Float32Arrays are copied in and out per call (correct, but slower).
 *
 * @example
 * const kernels = await createWasmKernels({ threads: 4 });
 * const a = kernels.alloc(64 * 32), b = kernels.alloc(32 * 16), c = kernels.alloc(64 * 16);
 * kernels.matmul({ a, b, c, m: 64, k: 32, n: 16 });
 * await kernels.dispose();
 */
export async function createWasmKernels(options: WasmKernelOptions = {}): Promise<WasmKernels> {
  const threads = checkThreads(options.threads ?? threadsFromEnv());
  const detected = detectSimdFlavor();
  const simd = options.simd === undefined || options.simd === 'auto' ? detected : options.simd;
  if (simd === 'relaxed' && detected !== 'relaxed') {
    throw new TroupeError('engine', "relaxed SIMD is not available in this JavaScript engine; use simd: 'plain' or 'auto'");
  }
  const module = compileKernelModule(simd);
  const heap = new Heap();
  const exports = new WebAssembly.Instance(module, { env: { memory: heap.memory } }).exports as unknown as KernelExports;
  exports.set_tmp(heap.allocBytes(512)); // tail staging + exp constants (see wat/math.wat)
  const arena = new CallArena(heap);
  const workerScratch = Array.from({ length: threads - 1 }, () => heap.allocBytes(MATMUL_SCRATCH_BYTES));
  const pool = threads > 1
    ? await ThreadPool.start(module, heap.memory, heap.allocBytes(128), workerScratch, { adaptive: options.adaptiveSplit ?? true })
    : null;
  const ctx: MatmulContext = {
    exports,
    arena,
    pool,
    scratch: heap.allocBytes(MATMUL_SCRATCH_BYTES),
    parallelThreshold: options.parallelThreshold ?? DEFAULT_PARALLEL_THRESHOLD,
    matvecSplitFrom: options.matvecSplitFrom ?? MATVEC_SPLIT_DEFAULT,
  };
  const ropeTables = new RopeTables(heap);
  const ptr = (array: Float32Array, length: number, writeBack = false) => arena.ptr(array, length, writeBack);
  /** Runs `body` and always releases the per-call copies. */
  const call = <T>(body: () => T): T => {
    try {
      return body();
    } finally {
      arena.finish();
    }
  };

  return {
    name: `wasm-${simd}`,
    threads,
    bf16Matmul: options.bf16Matmul ?? bf16MatmulFromEnv(),
    simd,
    heap,
    exports,
    dispose: async () => pool?.dispose(),
    alloc: (length) => heap.alloc(length),
    free: (array) => heap.free(array),
    matmul: (args) => dispatchMatmul(ctx, args),
    matmulBf16: (args) => dispatchMatmulBf16(ctx, args),
    add(a, b, out) {
      const n = checkSameLength('add', { a, b, out });
      call(() => exports.add(ptr(a, n), ptr(b, n), ptr(out, n, true), n));
    },
    mul(a, b, out) {
      const n = checkSameLength('mul', { a, b, out });
      call(() => exports.mul(ptr(a, n), ptr(b, n), ptr(out, n, true), n));
    },
    axpy(alpha, x, y) {
      const n = checkSameLength('axpy', { x, y });
      call(() => exports.axpy(alpha, ptr(x, n), ptr(y, n, true), n));
    },
    sumSquares: (x) => call(() => exports.sum_squares(ptr(x, x.length), x.length)),
    rmsNorm(x, weight, out, invRms, rows, d, eps) {
      checkRmsNorm(x, weight, out, invRms, rows, d);
      call(() => exports.rms_norm(ptr(x, rows * d), ptr(weight, d), ptr(out, rows * d, true), ptr(invRms, rows, true), rows, d, eps));
    },
    rmsNormBackward(x, weight, invRms, dOut, dx, dWeight, rows, d) {
      checkRmsNormBackward(x, weight, invRms, dOut, dx, dWeight, rows, d);
      call(() => exports.rms_norm_backward(ptr(x, rows * d), ptr(weight, d), ptr(invRms, rows), ptr(dOut, rows * d),
        ptr(dx, rows * d, true), ptr(dWeight, d, true), rows, d));
    },
    causalSoftmax(scores, rows, cols, offset, scale) {
      checkRows('causalSoftmax', 'scores', scores, rows, cols);
      if (!Number.isInteger(offset)) throw new TroupeError('engine', `causalSoftmax: offset must be an integer, got ${offset}`);
      const clamped = Math.max(-rows - 1, Math.min(offset, cols)); // keep r + offset + 1 inside i32
      call(() => exports.causal_softmax(ptr(scores, rows * cols, true), rows, cols, clamped, scale));
    },
    causalSoftmaxBackward(p, dP, rows, cols, scale) {
      checkRows('causalSoftmaxBackward', 'p', p, rows, cols);
      checkRows('causalSoftmaxBackward', 'dP', dP, rows, cols);
      call(() => exports.causal_softmax_backward(ptr(p, rows * cols), ptr(dP, rows * cols, true), rows, cols, scale));
    },
    swiglu(gate, up, out) {
      const n = checkSameLength('swiglu', { gate, up, out });
      call(() => exports.swiglu(ptr(gate, n), ptr(up, n), ptr(out, n, true), n));
    },
    swigluBackward(gate, up, dOut, dGate, dUp) {
      const n = checkSameLength('swigluBackward', { gate, up, dOut, dGate, dUp });
      call(() => exports.swiglu_backward(ptr(gate, n), ptr(up, n), ptr(dOut, n), ptr(dGate, n, true), ptr(dUp, n, true), n));
    },
    rope(x, positions, tokens, heads, headDim, invFreq, inverse) {
      checkRope(x, positions, invFreq, tokens, heads, headDim);
      if (tokens === 0 || heads === 0 || headDim < 2) return;
      const table = ropeTables.get(positions, tokens, invFreq.subarray(0, headDim >> 1));
      call(() => exports.rope(ptr(x, tokens * heads * headDim, true), arena.ptr(positions, tokens, false),
        table.cos.byteOffset, table.sin.byteOffset, tokens, heads, headDim, inverse ? -1 : 1));
    },
    logSoftmaxGatherBackward,
    logSoftmax(logits, rows, vocab, entropy) {
      checkLogSoftmax(logits, rows, vocab, entropy);
      if (rows === 0 || vocab === 0) return;
      call(() => exports.log_softmax(ptr(logits, rows * vocab, true), rows, vocab, arena.scratch(vocab * 4)));
      if (entropy) rowEntropies(logits, rows, vocab, entropy);
    },
    adamw(param, grad, m, v, o) {
      const n = checkSameLength('adamw', { param, grad, m, v });
      const c1 = 1 / (1 - Math.pow(o.beta1, o.step));
      const c2 = 1 / (1 - Math.pow(o.beta2, o.step));
      call(() => exports.adamw(ptr(param, n, true), ptr(grad, n), ptr(m, n, true), ptr(v, n, true), n,
        o.lr, o.beta1, o.beta2, o.eps, 1 - o.lr * o.weightDecay, c1, c2));
    },
  };
}
