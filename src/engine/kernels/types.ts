/**
 * The numeric kernels the engine is built on. Two implementations share this interface and
 * one conformance suite: `reference` (plain TypeScript, obviously correct, used by tests)
 * and `wasm` (WebAssembly SIMD, large matmuls split across worker threads).
 *
 * Conventions:
 * - All matrices are row-major Float32Arrays. Pass `subarray` views to address part of a
 *   buffer. Output arrays never alias inputs unless an op says so.
 * - Kernels are deterministic: the same inputs and thread count give bit-identical outputs.
 * - Arrays allocated with `alloc` live in the kernels' own memory (for `wasm`, the shared
 *   WebAssembly heap) so calls need no copies; any other Float32Array also works (copied).
 * Shapes are named in the argument lists: rows x cols.
 */
import type { Bf16MatmulMode } from './bf16-matmul-mode.js';

export interface MatmulArgs {
  /** m x k, or k x m when transA. */
  readonly a: Float32Array;
  /** k x n, or n x k when transB. */
  readonly b: Float32Array;
  /** m x n output. */
  readonly c: Float32Array;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly transA?: boolean;
  readonly transB?: boolean;
  /** c += op(a) op(b) instead of c = op(a) op(b). */
  readonly accumulate?: boolean;
}

/**
 * A matmul whose right-hand side is a bfloat16 weight (bit patterns, the top 16 bits of each
 * float32), widened to float32 inside the kernel: c (+)= a op(b) for a m x k float32.
 * transB: b is n x k, c = a b^T (y = x W^T, a frozen linear layer's forward); otherwise b is
 * k x n, c = a b (dx = dy W, the backward through it). Widening is exact, so the result equals
 * `matmul` with b converted to float32 (to the summation-order rounding of that backend).
 * roundA: a is first rounded to bf16 (roundToBf16 in io/half-float.ts: nearest even,
 * subnormals to zero), so the result equals `matmul` of the rounded a and the widened b
 * (the `fast` bf16 product, bf16-matmul-mode.ts; vdpbf16ps where the CPU has it).
 */
export interface MatmulBf16Args {
  readonly a: Float32Array;
  readonly b: Uint16Array;
  readonly c: Float32Array;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly transB?: boolean;
  readonly accumulate?: boolean;
  readonly roundA?: boolean;
}

/**
 * The causal attention of ONE query sequence, all heads, as autograd/attention.ts computes it
 * head by head (see there): q (T, heads * headDim) rows, keys and values head-major
 * (kvHeads, S = prefixLen + T, headDim), probabilities per head in causal blocks of rowBlock
 * query rows, back to back.
 */
export interface AttentionSequenceArgs {
  readonly q: Float32Array;
  readonly kh: Float32Array;
  readonly vh: Float32Array;
  readonly probs: Float32Array;
  readonly seqLen: number;
  readonly prefixLen: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly rowBlock: number;
  readonly scale: number;
}

export interface Kernels {
  readonly name: string;
  /** Worker threads used for large matmuls (1 = the calling thread only). */
  readonly threads: number;
  /**
   * Changes `threads` for later calls (results never depend on the count). Native only: an
   * asynchronous run lends part of them to its sampling thread during an update.
   */
  setThreads?(threads: number): void;
  /** How weight-ops multiplies by bf16 weights: `fast` passes roundA (bf16-matmul-mode.ts). */
  readonly bf16Matmul: Bf16MatmulMode;

  /**
   * A Float32Array of `length` zeros in kernel memory, kept until `free`. `zero: false` says
   * the caller overwrites every element, so a backend that recycles memory (native) may hand
   * back old values instead of zero-filling; the others zero-fill anyway. `managed: true`
   * promises that the owner always frees the array (a BufferPool): the native backend then
   * leaves it out of the memory pressure that makes V8 collect garbage (a GC cannot free it
   * anyway), so a step that takes a gigabyte of activations does not trigger a dozen full
   * collections of the JavaScript heap.
   */
  alloc(length: number, zero?: boolean, managed?: boolean): Float32Array;
  free(array: Float32Array): void;

  matmul(args: MatmulArgs): void;
  /** matmul with a bf16 right-hand side (see MatmulBf16Args). */
  matmulBf16(args: MatmulBf16Args): void;

  /** out[i] = a[i] + b[i]. out may alias a. */
  add(a: Float32Array, b: Float32Array, out: Float32Array): void;
  /** out[i] = a[i] * b[i]. out may alias a. */
  mul(a: Float32Array, b: Float32Array, out: Float32Array): void;
  /** y[i] += alpha * x[i]. */
  axpy(alpha: number, x: Float32Array, y: Float32Array): void;
  /** sum of x[i]^2 (for gradient-norm clipping). */
  sumSquares(x: Float32Array): number;

  /** RMSNorm over rows x d: out = x / rms(x) * weight; writes 1/rms per row to invRms. */
  rmsNorm(x: Float32Array, weight: Float32Array, out: Float32Array, invRms: Float32Array, rows: number, d: number, eps: number): void;
  /** Backward of rmsNorm: dx = (overwritten), dWeight += (accumulated). */
  rmsNormBackward(x: Float32Array, weight: Float32Array, invRms: Float32Array, dOut: Float32Array, dx: Float32Array, dWeight: Float32Array, rows: number, d: number): void;

  /**
   * In-place causal softmax over rows x cols attention scores, after multiplying by `scale`.
   * Row r may attend to columns 0..(r + offset); later columns become 0. offset = cols - rows
   * for a query block at the end of a key sequence (KV cache decoding).
   */
  causalSoftmax(scores: Float32Array, rows: number, cols: number, offset: number, scale: number): void;
  /** Backward of causalSoftmax: dScores = scale * p * (dP - sum(dP * p)), in place over dP. */
  causalSoftmaxBackward(p: Float32Array, dP: Float32Array, rows: number, cols: number, scale: number): void;

  /** SwiGLU: out = silu(gate) * up, all rows x cols flattened. */
  swiglu(gate: Float32Array, up: Float32Array, out: Float32Array): void;
  /** Backward of swiglu: writes dGate and dUp (overwritten). */
  swigluBackward(gate: Float32Array, up: Float32Array, dOut: Float32Array, dGate: Float32Array, dUp: Float32Array): void;

  /**
   * Rotary embedding in place on x laid out [tokens, heads, headDim], token t at position
   * positions[t]; rotates pairs (i, i + headDim/2) (the Hugging Face Llama convention) by
   * angle positions[t] * invFreq[i], i < headDim/2. `invFreq` (headDim/2 entries) is the
   * model's inverse-frequency table: theta^(-2i/headDim) for plain RoPE, rescaled per
   * dimension for Llama 3 (see model/rope-frequencies.ts). Angles and their cos/sin are
   * computed in float64 and rounded to float32; a backend may cache cos/sin tables per
   * distinct invFreq content. `inverse` rotates by the negative angle (the backward).
   */
  rope(x: Float32Array, positions: Int32Array, tokens: number, heads: number, headDim: number, invFreq: Float32Array, inverse: boolean): void;

  /**
   * Log-softmax of logits rows x vocab, in place (logits become log-probabilities). Returns
   * nothing; gather the target entries yourself. With `entropy` (rows long), also writes each
   * row's entropy -sum p log p (p = exp of the result), a metric of the learner.
   */
  logSoftmax(logits: Float32Array, rows: number, vocab: number, entropy?: Float32Array): void;
  /**
   * The backward of gathering log-probs from a log-softmax, in place: logp (rows x vocab,
   * from logSoftmax) becomes d loss / d logits, row i = g[i] * (onehot(targets[i]) -
   * exp(logp[i])), for the gradient g[i] of the gathered log-prob of row i.
   */
  logSoftmaxGatherBackward(logp: Float32Array, rows: number, vocab: number, targets: Int32Array, g: Float32Array): void;

  /**
   * One AdamW step over a flat parameter array (decoupled weight decay). step is 1-based
   * (for bias correction). m and v are the moment buffers, updated in place.
   */
  adamw(param: Float32Array, grad: Float32Array, m: Float32Array, v: Float32Array, options: {
    lr: number; beta1: number; beta2: number; eps: number; weightDecay: number; step: number;
  }): void;

  /**
   * Optional (the native backend): one token from each of `rows` rows of logits by the
   * sampler's whole-row rule (sampling/sample-token.ts: weights exp(logit / T - max), summed in
   * token order, the first token where u * sum - running sum < 0), with the same bits: the
   * exponentials are V8's Math.exp. out[4r..4r+3] = pick, its weight, the sum, the max; pick
   * -1 for a row it leaves to the caller (a NaN or +Infinity logit). Rows run in parallel.
   */
  sampleRows?(logits: Float32Array, rows: number, vocab: number, temperature: Float64Array, uniform: Float64Array, out: Float64Array): void;

  /**
   * Optional (the native backend): attention.ts's per-head loops of one sequence in one call,
   * heads in parallel, with the same products and softmax calls, so the same bits. Forward
   * writes probs and out (T, heads * headDim); backward writes dk, dv (head-major, like kh)
   * and writes or adds (dq.accumulate) dq. Backends without it run the loops in TypeScript.
   */
  attentionForward?(args: AttentionSequenceArgs & { out: Float32Array }): void;
  attentionBackward?(args: AttentionSequenceArgs & {
    dOut: Float32Array; dq?: { grad: Float32Array; accumulate: boolean }; dk: Float32Array; dv: Float32Array;
  }): void;
  /**
   * Optional (the native backend): attention.ts's whole loop over a batch's sequences in one
   * call (native/src/attention.h): token-major q, k, v and prefix rows in, each sequence's
   * scores (probs) written back to back for the backward, which reads the same q, k, v and
   * prefix rows again. The per-sequence work is attentionForward's, so the same bits.
   */
  attentionBatchForward?(args: AttentionBatchArgs & { out: Float32Array }): void;
  /** Its backward: gradients written or added (accumulate), prefix gradients always added. */
  attentionBatchBackward?(args: AttentionBatchArgs & {
    dOut: Float32Array;
    dq?: GradientSink; dk?: GradientSink; dv?: GradientSink;
    dPrefixK?: Float32Array; dPrefixV?: Float32Array;
  }): void;
  /**
   * Optional (the native backend): llama-inference.ts's attention loop of one forward call in
   * one call. Segment s has `meta[4s+1]` new rows of q (token-major, heads*headDim wide) from
   * row `meta[4s]` on; they attend causally over the first keys = `meta[4s+2]` positions of the
   * segment's own head-major [kvHeads][capacity = meta[4s+3]][headDim] caches kCaches[s],
   * vCaches[s] (the new rows are the last of them). Every head is scores = q K^T,
   * causalSoftmax(scores, rows, keys, keys - rows, scale), out = scores V with this backend's
   * matmul and causalSoftmax on the same operands as that loop, so the same bits.
   */
  cacheAttention?(args: CacheAttentionArgs): void;
}

export interface CacheAttentionArgs {
  readonly q: Float32Array;
  readonly out: Float32Array;
  readonly kCaches: readonly Float32Array[];
  readonly vCaches: readonly Float32Array[];
  readonly meta: Int32Array;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly scale: number;
}

export interface GradientSink {
  readonly grad: Float32Array;
  readonly accumulate: boolean;
}

/** A batch of query sequences for attentionBatchForward / attentionBatchBackward. */
export interface AttentionBatchArgs {
  /** Token-major: q (B*T, heads*hd), k and v (B*T, kvHeads*hd), the prefixes' k and v
   *  (prefixCount*prefixSeqLen, kvHeads*hd; empty without a prefix). */
  readonly q: Float32Array;
  readonly k: Float32Array;
  readonly v: Float32Array;
  readonly prefixK: Float32Array;
  readonly prefixV: Float32Array;
  readonly probs: Float32Array;
  readonly batch: number;
  readonly seqLen: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly rowBlock: number;
  readonly scale: number;
  /** Rows per prefix sequence, and how many prefix sequences the prefix arrays hold. */
  readonly prefixSeqLen: number;
  readonly prefixCount: number;
  /** [prefix length of each sequence..., prefix index of each sequence...] (2 * batch). */
  readonly meta: Int32Array;
}
