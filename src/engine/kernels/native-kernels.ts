import { TroupeError } from '../../util/errors.js';
import { checkThreads, threadsFromEnv } from '../../util/thread-count.js';
import { type Bf16MatmulMode, bf16MatmulFromEnv } from './bf16-matmul-mode.js';
import { checkGatherBackward, checkLogSoftmax, checkMatmul, checkRmsNorm, checkRmsNormBackward, checkRope, checkRows, checkSameLength } from './check-shapes.js';
import { loadNativeBinding } from './native-binding.js';
import { RopeTables } from './rope-table.js';
import type { AttentionBatchArgs, AttentionSequenceArgs, Kernels } from './types.js';

export interface NativeKernelOptions {
  /** 1 = the calling thread only; N = N - 1 helper threads for large products. Default:
   *  TROUPE_THREADS, else the cores this process may use. Results do not depend on it. */
  readonly threads?: number;
  /** Instruction set: 'auto' (the fastest this CPU has), 'avx512-bf16' (AVX-512 with vdpbf16ps
   *  for the fast bf16 product), 'avx512', 'avx2' or 'baseline'. */
  readonly isa?: string;
  /** m*n*k from which a matmul is split across the threads, and n*k for 1-3 row products; tests of the
   *  split set them to 0. Defaults: the addon's (native/src/gemm.h). */
  readonly parallelFrom?: number;
  readonly rowsParallelFrom?: number;
  /** Most rows of a bf16 x W^T that stream W instead of packing it (decoding a batch; the same
   *  bits either way). Tests set 0 to compare with the packed path. Default: the addon's (64). */
  readonly streamRowsUpTo?: number;
  /** Products with bf16 weights (bf16-matmul-mode.ts); default TROUPE_BF16_MATMUL, else fast. */
  readonly bf16Matmul?: Bf16MatmulMode;
}

export interface NativeKernels extends Kernels {
  /** The instruction set the kernels run ('avx512', 'avx2', 'baseline'). */
  readonly isa: string;
  /** Nothing to stop (the helper threads sleep when idle); kept for symmetry with WASM. */
  dispose(): Promise<void>;
}

const NONE = new Float32Array(0); // an optional output not asked for

function attentionDims(a: AttentionSequenceArgs): Int32Array {
  return Int32Array.of(a.seqLen, a.prefixLen, a.heads, a.kvHeads, a.headDim, a.rowBlock);
}

function batchDims(a: AttentionBatchArgs): Int32Array {
  return Int32Array.of(a.batch, a.seqLen, a.heads, a.kvHeads, a.headDim, a.rowBlock, a.prefixSeqLen, a.prefixCount);
}

// The addon's defaults (native/src/gemm.h), for a create() call that sets only some of them.
const PARALLEL_FROM = 2 ** 19;
const ROWS_PARALLEL_FROM = 2 ** 17;
const STREAM_ROWS_UP_TO = 64;

const TRANS_A = 1;
const TRANS_B = 2;
const ACCUMULATE = 4;
const ROUND_A = 8;

/**
 * The native CPU backend: C++ kernels (native/) for AVX-512, AVX2+FMA or plain x86-64,
 * chosen with cpuid, on the arrays' own memory (no copies, any Float32Array works).
 * Throws a TroupeError saying why when the addon is not available.
 *
 * @example
 * const kernels = createNativeKernels({ threads: 2 });
 * kernels.matmul({ a, b, c, m: 64, k: 32, n: 16 });
 */
export function createNativeKernels(options: NativeKernelOptions = {}): NativeKernels {
  const threads = checkThreads(options.threads ?? threadsFromEnv());
  const load = loadNativeBinding();
  if (!load.binding) {
    throw new TroupeError('engine', `the native backend is not available: ${load.reason}. Use engine.backend: wasm (or --backend wasm)`);
  }
  const binding = load.binding;
  const isa = options.isa === undefined || options.isa === 'auto' ? binding.isas[0]! : options.isa;
  if (!binding.isas.includes(isa)) {
    throw new TroupeError('engine', `instruction set '${isa}' is not available on this CPU; available: ${binding.isas.join(', ')}`);
  }
  const ops = options.parallelFrom === undefined && options.streamRowsUpTo === undefined
    ? binding.create(isa, threads)
    : binding.create(isa, threads, options.parallelFrom ?? PARALLEL_FROM, options.rowsParallelFrom ?? options.parallelFrom ?? ROWS_PARALLEL_FROM, options.streamRowsUpTo ?? STREAM_ROWS_UP_TO);
  const ropeTables = new RopeTables(binding);
  let current = threads;
  return {
    name: `native-${isa}`,
    get threads() {
      return current;
    },
    setThreads(n: number) {
      ops.setThreads(checkThreads(n));
      current = n;
    },
    bf16Matmul: options.bf16Matmul ?? bf16MatmulFromEnv(),
    isa,
    dispose: async () => {},
    alloc: (length, zero = true, managed = false) => binding.alloc(length, zero, managed),
    free: (array) => binding.free(array),
    matmul(args) {
      checkMatmul(args);
      const flags = (args.transA ? TRANS_A : 0) | (args.transB ? TRANS_B : 0) | (args.accumulate ? ACCUMULATE : 0);
      ops.matmul(args.a, args.b, args.c, args.m, args.n, args.k, flags);
    },
    matmulBf16(args) {
      checkMatmul(args, 'matmulBf16');
      const flags = (args.transB ? TRANS_B : 0) | (args.accumulate ? ACCUMULATE : 0) | (args.roundA ? ROUND_A : 0);
      ops.matmulBf16(args.a, args.b, args.c, args.m, args.n, args.k, flags);
    },
    add(a, b, out) {
      checkSameLength('add', { a, b, out });
      ops.add(a, b, out);
    },
    mul(a, b, out) {
      checkSameLength('mul', { a, b, out });
      ops.mul(a, b, out);
    },
    axpy(alpha, x, y) {
      checkSameLength('axpy', { x, y });
      ops.axpy(alpha, x, y);
    },
    sumSquares: (x) => ops.sumSquares(x),
    rmsNorm(x, weight, out, invRms, rows, d, eps) {
      checkRmsNorm(x, weight, out, invRms, rows, d);
      ops.rmsNorm(x, weight, out, invRms, rows, d, eps);
    },
    rmsNormBackward(x, weight, invRms, dOut, dx, dWeight, rows, d) {
      checkRmsNormBackward(x, weight, invRms, dOut, dx, dWeight, rows, d);
      ops.rmsNormBackward(x, weight, invRms, dOut, dx, dWeight, rows, d);
    },
    causalSoftmax(scores, rows, cols, offset, scale) {
      checkRows('causalSoftmax', 'scores', scores, rows, cols);
      if (!Number.isInteger(offset)) throw new TroupeError('engine', `causalSoftmax: offset must be an integer, got ${offset}`);
      ops.causalSoftmax(scores, rows, cols, offset, scale);
    },
    causalSoftmaxBackward(p, dP, rows, cols, scale) {
      checkRows('causalSoftmaxBackward', 'p', p, rows, cols);
      checkRows('causalSoftmaxBackward', 'dP', dP, rows, cols);
      ops.causalSoftmaxBackward(p, dP, rows, cols, scale);
    },
    swiglu(gate, up, out) {
      checkSameLength('swiglu', { gate, up, out });
      ops.swiglu(gate, up, out);
    },
    swigluBackward(gate, up, dOut, dGate, dUp) {
      checkSameLength('swigluBackward', { gate, up, dOut, dGate, dUp });
      ops.swigluBackward(gate, up, dOut, dGate, dUp);
    },
    rope(x, positions, tokens, heads, headDim, invFreq, inverse) {
      checkRope(x, positions, invFreq, tokens, heads, headDim);
      if (tokens === 0 || heads === 0 || headDim < 2) return;
      const table = ropeTables.get(positions, tokens, invFreq.subarray(0, headDim >> 1));
      ops.rope(x, positions, table.cos, table.sin, tokens, heads, headDim, inverse ? -1 : 1);
    },
    logSoftmax(logits, rows, vocab, entropy) {
      checkLogSoftmax(logits, rows, vocab, entropy);
      ops.logSoftmax(logits, rows, vocab, entropy ?? NONE);
    },
    logSoftmaxGatherBackward(logp, rows, vocab, targets, g) {
      checkGatherBackward(logp, rows, vocab, targets, g);
      ops.logSoftmaxGatherBackward(logp, rows, vocab, targets, g);
    },
    attentionForward(args) {
      ops.attentionForward(args.q, args.kh, args.vh, args.probs, args.out, attentionDims(args), args.scale);
    },
    attentionBackward(args) {
      const dq = args.dq?.grad ?? NONE;
      ops.attentionBackward(args.q, args.kh, args.vh, args.probs, args.dOut, dq, args.dk, args.dv, attentionDims(args), args.scale, args.dq?.accumulate ? 1 : 0);
    },
    attentionBatchForward(a) {
      ops.attentionBatchForward(a.q, a.k, a.v, a.prefixK, a.prefixV, a.probs, a.out, a.meta, batchDims(a), a.scale);
    },
    attentionBatchBackward(a) {
      const flags = (a.dq?.accumulate ? 1 : 0) | (a.dk?.accumulate ? 2 : 0) | (a.dv?.accumulate ? 4 : 0);
      ops.attentionBatchBackward(a.q, a.k, a.v, a.prefixK, a.prefixV, a.probs, a.dOut, a.dq?.grad ?? NONE, a.dk?.grad ?? NONE, a.dv?.grad ?? NONE,
        a.dPrefixK ?? NONE, a.dPrefixV ?? NONE, a.meta, batchDims(a), a.scale, flags);
    },
    sampleRows(logits, rows, vocab, temperature, uniform, out) {
      checkRows('sampleRows', 'logits', logits, rows, vocab);
      ops.sampleRows(logits, rows, vocab, temperature, uniform, out);
    },
    cacheAttention(a) {
      ops.cacheAttention(a.q, a.out, a.kCaches, a.vCaches, a.meta, Int32Array.of(a.kCaches.length, a.heads, a.kvHeads, a.headDim), a.scale);
    },
    adamw(param, grad, m, v, o) {
      checkSameLength('adamw', { param, grad, m, v });
      const c1 = 1 / (1 - Math.pow(o.beta1, o.step));
      const c2 = 1 / (1 - Math.pow(o.beta2, o.step));
      ops.adamw(param, grad, m, v, o.lr, o.beta1, o.beta2, o.eps, 1 - o.lr * o.weightDecay, c1, c2);
    },
  };
}
