import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The compiled addon (native/, built at install by scripts/build-native.mjs). Every function
 * takes plain Float32Arrays and uses their memory in place; lengths are re-checked in C++.
 */
export interface NativeOps {
  matmul(a: Float32Array, b: Float32Array, c: Float32Array, m: number, n: number, k: number, flags: number): void;
  /** b: bf16 bit patterns; flags as matmul without TRANS_A. */
  matmulBf16(a: Float32Array, b: Uint16Array, c: Float32Array, m: number, n: number, k: number, flags: number): void;
  setThreads(threads: number): void;
  add(a: Float32Array, b: Float32Array, out: Float32Array): void;
  mul(a: Float32Array, b: Float32Array, out: Float32Array): void;
  axpy(alpha: number, x: Float32Array, y: Float32Array): void;
  sumSquares(x: Float32Array): number;
  rmsNorm(x: Float32Array, w: Float32Array, out: Float32Array, invRms: Float32Array, rows: number, d: number, eps: number): void;
  rmsNormBackward(x: Float32Array, w: Float32Array, invRms: Float32Array, dOut: Float32Array, dx: Float32Array, dW: Float32Array, rows: number, d: number): void;
  causalSoftmax(scores: Float32Array, rows: number, cols: number, offset: number, scale: number): void;
  causalSoftmaxBackward(p: Float32Array, dP: Float32Array, rows: number, cols: number, scale: number): void;
  swiglu(gate: Float32Array, up: Float32Array, out: Float32Array): void;
  swigluBackward(gate: Float32Array, up: Float32Array, dOut: Float32Array, dGate: Float32Array, dUp: Float32Array): void;
  /** cos/sin: [position][headDim / 2]; sign -1 rotates backwards. */
  rope(x: Float32Array, positions: Int32Array, cos: Float32Array, sin: Float32Array, tokens: number, heads: number, headDim: number, sign: number): void;
  /** An empty entropy: none wanted. */
  logSoftmax(logits: Float32Array, rows: number, vocab: number, entropy: Float32Array): void;
  logSoftmaxGatherBackward(logp: Float32Array, rows: number, vocab: number, targets: Int32Array, g: Float32Array): void;
  /** c1, c2: reciprocal bias corrections; decay = 1 - lr * weightDecay. */
  adamw(param: Float32Array, grad: Float32Array, m: Float32Array, v: Float32Array,
    lr: number, beta1: number, beta2: number, eps: number, decay: number, c1: number, c2: number): void;
  /** dims: [seqLen, prefixLen, heads, kvHeads, headDim, rowBlock] (native/src/attention.h). */
  attentionForward(q: Float32Array, kh: Float32Array, vh: Float32Array, probs: Float32Array, out: Float32Array, dims: Int32Array, scale: number): void;
  /** An empty dq: no gradient for q. */
  attentionBackward(q: Float32Array, kh: Float32Array, vh: Float32Array, probs: Float32Array, dOut: Float32Array, dq: Float32Array,
    dk: Float32Array, dv: Float32Array, dims: Int32Array, scale: number, dqAccumulate: number): void;
  /** dims: [batch, seqLen, heads, kvHeads, headDim, rowBlock, prefixSeqLen, prefixCount]; meta: prefix lengths then indices. */
  attentionBatchForward(q: Float32Array, k: Float32Array, v: Float32Array, prefixK: Float32Array, prefixV: Float32Array,
    probs: Float32Array, out: Float32Array, meta: Int32Array, dims: Int32Array, scale: number): void;
  /** Empty gradient arrays: none wanted; flags 1/2/4: dq/dk/dv add instead of overwrite. */
  attentionBatchBackward(q: Float32Array, k: Float32Array, v: Float32Array, prefixK: Float32Array, prefixV: Float32Array,
    probs: Float32Array, dOut: Float32Array,
    dq: Float32Array, dk: Float32Array, dv: Float32Array, dPrefixK: Float32Array, dPrefixV: Float32Array,
    meta: Int32Array, dims: Int32Array, scale: number, flags: number): void;
  /** meta: [first row, rows, keys, capacity] per segment; dims: [segments, heads, kvHeads, headDim]. */
  cacheAttention(q: Float32Array, out: Float32Array, kCaches: readonly Float32Array[], vCaches: readonly Float32Array[],
    meta: Int32Array, dims: Int32Array, scale: number): void;
  /** out[4r..4r+3] = pick (-1: not sampled), its weight, the weights' sum, the row's max (native/src/sample-rows.h). */
  sampleRows(logits: Float32Array, rows: number, vocab: number, temperature: Float64Array, uniform: Float64Array, out: Float64Array): void;
}

export interface NativeBinding {
  /** Instruction sets this CPU runs, fastest first: 'avx512-bf16', 'avx512', 'avx2', 'baseline'. */
  readonly isas: readonly string[];
  /** Every instruction set the addon was compiled with, in the same order, whether or not this CPU runs it. */
  readonly builtIsas: readonly string[];
  /** Whether the CPU has AVX512_BF16. */
  readonly bf16: boolean;
  /** parallelFrom: m*n*k from which a matmul is split across threads; rowsParallelFrom: n*k
   *  from which a 1-3 row product is (defaults in native/src/gemm.h). */
  create(isa: string, threads: number, parallelFrom?: number, rowsParallelFrom?: number, streamRowsUpTo?: number): NativeOps;
  /** Zeroed (unless `zero` is false: then maybe old values), 64-byte aligned, outside the JavaScript heap;
   *  `managed` (the owner always frees it): left out of V8's external-memory count, up to 2 GiB in all. */
  alloc(length: number, zero?: boolean, managed?: boolean): Float32Array;
  /** Returns the memory now (the array becomes empty). */
  free(array: Float32Array): void;
  /** Bytes allocated and not yet returned (by free, or by the GC for arrays never freed). */
  liveBytes(): number;
  /** Bytes of live managed blocks (alloc's `managed`) left out of V8's external-memory count. */
  untrackedBytes(): number;
  /** V8's count of external memory that schedules garbage collections (ArrayBuffers' bytes
   *  plus what addons report; not process.memoryUsage().external, which counts buffers only). */
  v8ExternalMemory(): number;
  /** Bytes of freed large blocks kept for the next alloc of their size (native/src/page-cache.h). */
  cachedBytes(): number;
  /** Caps that cache (default 1 GiB or TROUPE_PAGE_CACHE_MB; 0 gives freed blocks back at
   *  once) and returns the previous cap. */
  setPageCacheLimit(bytes: number): number;
}

export type NativeLoad = { readonly binding: NativeBinding } | { readonly binding?: undefined; readonly reason: string };

/** native/build/Release/troupe_native.node, from dist/src/engine/kernels/ or src/engine/kernels/. */
export function addonPath(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const fromDist = fileURLToPath(new URL('../../../../native/build/Release/troupe_native.node', import.meta.url));
  const fromSrc = fileURLToPath(new URL('../../../native/build/Release/troupe_native.node', import.meta.url));
  return here.includes('/dist/') ? fromDist : fromSrc;
}

let loaded: NativeLoad | undefined;

/**
 * Loads the addon once. Never throws: when TROUPE_NO_NATIVE=1 is set or the addon was not
 * built (or does not load), `reason` says why and Troupe uses the WASM backend.
 */
export function loadNativeBinding(env: NodeJS.ProcessEnv = process.env): NativeLoad {
  if (env.TROUPE_NO_NATIVE === '1') return { reason: 'TROUPE_NO_NATIVE=1 is set' };
  if (loaded) return loaded;
  const path = addonPath();
  if (!existsSync(path)) {
    loaded = { reason: `the addon was not built (${path} is missing; run 'node scripts/build-native.mjs' and see native/build.log)` };
    return loaded;
  }
  try {
    loaded = { binding: createRequire(import.meta.url)(path) as NativeBinding };
  } catch (error) {
    loaded = { reason: `the addon at ${path} did not load: ${(error as Error).message}` };
  }
  return loaded;
}
