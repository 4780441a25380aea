import { TroupeError } from '../../util/errors.js';
import type { Tensor } from '../tensor.js';
import { asMatrix, expectEqual } from './check.js';
import type { AttentionSequenceArgs } from '../kernels/types.js';
import type { Tape } from './tape.js';
import { batchAttention, gradientSinks } from './attention-batch.js';
import { addBlock, copyBlock, copyRows, headMajorPrefix, headMajorTemp, kernelHeap } from './attention-copies.js';

/**
 * Keys and values that every query of a sequence sees before its own (a shared prompt, or a
 * KV cache). Several query sequences may point at the same prefix sequence: that is how a
 * GRPO group of K responses attends to a prompt that was run once. Gradients from all of
 * them accumulate into the one prefix.
 */
export interface AttentionPrefix {
  /** (prefixSequences * seqLen, kvHeads * headDim), after RoPE. */
  readonly k: Tensor;
  readonly v: Tensor;
  /** Rows per prefix sequence in k / v (padded length). */
  readonly seqLen: number;
  /** Valid rows of each prefix sequence (the rest is padding and is never attended to). */
  readonly lengths: readonly number[];
  /** For each query sequence b, which prefix sequence it continues. */
  readonly index: readonly number[];
}

export interface AttentionOptions {
  /** Query sequences B; q holds B * seqLen rows. */
  readonly batch: number;
  /** Rows per query sequence T (right-padded; padding rows only see earlier rows). */
  readonly seqLen: number;
  readonly heads: number;
  /** Key/value heads; query head h uses kv head floor(h / (heads / kvHeads)) (HF repeat_kv). */
  readonly kvHeads: number;
  readonly headDim: number;
  readonly prefix?: AttentionPrefix;
  /** Query rows per causal block (default ATTENTION_ROW_BLOCK); results do not depend on it
   *  beyond float rounding of the gradients. */
  readonly rowBlock?: number;
}

/**
 * Query rows per block of the causal loop. Block i (rows r0..r0+R) only sees keys up to its
 * last row, so scores, softmax and both matmuls skip the masked upper triangle block by
 * block: at T = 128, 4 blocks of 32 do 62.5% of the full T x T work (16 rows: 56%, but
 * twice the kernel calls of 32-row matrices).
 */
export const ATTENTION_ROW_BLOCK = 32;

/**
 * Causal multi-head attention with grouped-query heads.
 * q (B*T, heads*hd), k and v (B*T, kvHeads*hd), all laid out [token, head, hd].
 * Query t of sequence b sees its prefix (length Lp) and its own keys 0..t: it sits at key
 * position Lp + t, which is causalSoftmax's offset. Returns (B*T, heads*hd).
 *
 * Per head the queries go in row blocks (ATTENTION_ROW_BLOCK): block [r0, r0 + rb) has
 * scores against keys 0..Lp + r0 + rb only, stored as its own rb x (Lp + r0 + rb) matrix
 * (the probabilities of one head are these blocks back to back).
 */
export function attention(tape: Tape, q: Tensor, k: Tensor, v: Tensor, options: AttentionOptions): Tensor {
  const { batch: B, seqLen: T, heads: nh, kvHeads: nkv, headDim: hd, prefix } = options;
  const qw = nh * hd;
  const kw = nkv * hd;
  if (nkv <= 0 || nh % nkv !== 0) {
    throw new TroupeError('engine', `attention: heads (${nh}) must be a multiple of kvHeads (${nkv})`);
  }
  expectEqual('attention', 'q rows', asMatrix('attention', 'q', q)[0], B * T);
  expectEqual('attention', 'q width (heads * headDim)', q.shape[q.shape.length - 1]!, qw);
  for (const [name, t] of [['k', k], ['v', v]] as const) {
    expectEqual('attention', `${name} rows`, asMatrix('attention', name, t)[0], B * T);
    expectEqual('attention', `${name} width (kvHeads * headDim)`, t.shape[t.shape.length - 1]!, kw);
  }
  const rep = nh / nkv;
  const scale = 1 / Math.sqrt(hd);
  const kern = tape.kernels;
  const heap = kernelHeap(kern);
  const R = options.rowBlock ?? ATTENTION_ROW_BLOCK;
  if (!Number.isInteger(R) || R < 1) throw new TroupeError('engine', `attention: rowBlock must be a positive integer, got ${R}`);

  // Per-sequence key counts and buffer offsets (sequences may see different prefix lengths).
  const prefixLen: number[] = [];
  const kOff: number[] = [];
  const pOff: number[] = [];
  const pHead: number[] = []; // probabilities of one head of sequence b (its blocks)
  let kTotal = 0;
  let pTotal = 0;
  for (let b = 0; b < B; b++) {
    const lp = prefix ? prefixLength(prefix, b) : 0;
    prefixLen.push(lp);
    kOff.push(kTotal);
    pOff.push(pTotal);
    kTotal += nkv * (lp + T) * hd;
    const perHead = blockedScoreCount(T, lp, R);
    pHead.push(perHead);
    pTotal += nh * perHead;
  }

  const inputs = prefix ? [q, k, v, prefix.k, prefix.v] : [q, k, v];
  const out = tape.output([B * T, qw], inputs);
  if (B * T === 0) return out;
  if (kern.attentionBatchForward && kern.attentionBatchBackward) {
    batchAttention(tape, { q, k, v, out, prefix, prefixLen, scores: pTotal, options, scale, rowBlock: R });
    return out;
  }
  // A backend with its own per-sequence attention (native: heads in parallel, one call)
  // replaces the per-head loops below; the same products, so the same results.
  const fused = kern.attentionForward && kern.attentionBackward ? kern : undefined;
  // Head-major copies (h, t, d) so each head is a contiguous matrix for the matmul kernels.
  const qh = fused ? undefined : tape.scratch(B * nh * T * hd);
  const kh = tape.scratch(kTotal);
  const vh = tape.scratch(kTotal);
  const probs = tape.scratch(pTotal);
  const oh = tape.temp(T * hd);
  /** What the fused kernels need of sequence b. */
  const sequence = (b: number): AttentionSequenceArgs => {
    const keys = nkv * (prefixLen[b]! + T) * hd;
    return {
      q: q.data.subarray(b * T * qw, (b + 1) * T * qw),
      kh: kh.subarray(kOff[b]!, kOff[b]! + keys),
      vh: vh.subarray(kOff[b]!, kOff[b]! + keys),
      probs: probs.subarray(pOff[b]!, pOff[b]! + nh * pHead[b]!),
      seqLen: T, prefixLen: prefixLen[b]!, heads: nh, kvHeads: nkv, headDim: hd, rowBlock: R, scale,
    };
  };

  // Each prefix's keys and values go head-major once; every query sequence that continues it
  // (K of them for a GRPO group) then takes one contiguous block per kv head instead of lp rows.
  const prefixHeads = prefix && B > 0 ? headMajorPrefix(tape, heap, prefix, nkv, hd) : undefined;
  for (let b = 0; b < B; b++) {
    const lp = prefixLen[b]!;
    const S = lp + T;
    const qBase = b * nh * T * hd;
    if (qh) for (let h = 0; h < nh; h++) copyRows(heap, q.data, b * T * qw + h * hd, qw, qh, qBase + h * T * hd, hd, T, hd);
    for (let g = 0; g < nkv; g++) {
      const dst = kOff[b]! + g * S * hd;
      if (lp > 0) {
        const at = (prefix!.index[b]! * nkv + g) * prefix!.seqLen * hd;
        copyBlock(heap, prefixHeads!.k, at, kh, dst, lp * hd);
        copyBlock(heap, prefixHeads!.v, at, vh, dst, lp * hd);
      }
      copyRows(heap, k.data, b * T * kw + g * hd, kw, kh, dst + lp * hd, hd, T, hd);
      copyRows(heap, v.data, b * T * kw + g * hd, kw, vh, dst + lp * hd, hd, T, hd);
    }
    if (fused) {
      fused.attentionForward!({ ...sequence(b), out: out.data.subarray(b * T * qw, (b + 1) * T * qw) });
      continue;
    }
    for (let h = 0; h < nh; h++) {
      const g = Math.floor(h / rep);
      const qAt = qBase + h * T * hd; // (T, hd)
      const kvAt = kOff[b]! + g * S * hd; // (S, hd)
      let pAt = pOff[b]! + h * pHead[b]!;
      for (let r0 = 0; r0 < T; r0 += R) {
        const rb = Math.min(R, T - r0);
        const sb = lp + r0 + rb; // keys this block sees
        const pB = probs.subarray(pAt, pAt + rb * sb);
        kern.matmul({ a: qh!.subarray(qAt + r0 * hd, qAt + (r0 + rb) * hd), b: kh.subarray(kvAt, kvAt + sb * hd), c: pB, m: rb, n: sb, k: hd, transB: true });
        kern.causalSoftmax(pB, rb, sb, lp + r0, scale);
        kern.matmul({ a: pB, b: vh.subarray(kvAt, kvAt + sb * hd), c: oh.subarray(r0 * hd, (r0 + rb) * hd), m: rb, n: hd, k: sb });
        pAt += rb * sb;
      }
      copyRows(heap, oh, 0, hd, out.data, b * T * qw + h * hd, qw, T, hd);
    }
  }
  tape.release(oh);
  if (prefixHeads) {
    tape.release(prefixHeads.k);
    tape.release(prefixHeads.v);
  }

  tape.onBackward(out, () => {
    const dOut = out.grad!;
    const maxS = T + maxOf(prefixLen);
    const dO = tape.temp(fused ? 0 : T * hd);
    const dQ = tape.temp(fused ? 0 : T * hd);
    const dP = tape.temp(fused ? 0 : Math.min(R, T) * maxS);
    const dK = tape.temp(nkv * maxS * hd);
    const dV = tape.temp(dK.length);
    const { dq, dk, dv } = gradientSinks(tape, q, k, v, prefix);
    // The prefix gradients add up head-major (one contiguous run per sequence and kv head) and
    // go to the prefix's token-major rows once at the end; the sums are the same, in the same order.
    const prefixGrads = prefix && B > 0 ? { k: prefix.k.requiresGrad ? headMajorTemp(tape, prefix, nkv, hd) : undefined, v: prefix.v.requiresGrad ? headMajorTemp(tape, prefix, nkv, hd) : undefined } : undefined;
    for (let b = 0; b < B; b++) {
      const lp = prefixLen[b]!;
      const S = lp + T;
      const qBase = b * nh * T * hd;
      const blocks = Math.ceil(T / R);
      if (fused) {
        const rows = [b * T * qw, (b + 1) * T * qw] as const;
        fused.attentionBackward!({
          ...sequence(b),
          dOut: dOut.subarray(...rows),
          dq: dq ? { grad: dq.grad.subarray(...rows), accumulate: dq.accumulate } : undefined,
          dk: dK.subarray(0, nkv * S * hd),
          dv: dV.subarray(0, nkv * S * hd),
        });
      }
      for (let h = 0; h < (fused ? 0 : nh); h++) {
        const g = Math.floor(h / rep);
        const qAt = qBase + h * T * hd;
        const kvAt = kOff[b]! + g * S * hd;
        const headStart = pOff[b]! + h * pHead[b]!;
        copyRows(heap, dOut, b * T * qw + h * hd, qw, dO, 0, hd, T, hd);
        // Last block first: it sees all S keys, so the group's first head overwrites dK and
        // dV there (no zero-fill) and every later product accumulates.
        for (let i = blocks - 1; i >= 0; i--) {
          const r0 = i * R;
          const rb = Math.min(R, T - r0);
          const sb = lp + r0 + rb;
          const pAt = headStart + blockedScoreCount(r0, lp, R);
          const pB = probs.subarray(pAt, pAt + rb * sb);
          const dPB = dP.subarray(0, rb * sb);
          const dOB = dO.subarray(r0 * hd, (r0 + rb) * hd);
          const qB = qh!.subarray(qAt + r0 * hd, qAt + (r0 + rb) * hd);
          const acc = h % rep !== 0 || i !== blocks - 1;
          const dKB = dK.subarray(g * S * hd, (g * S + sb) * hd);
          const dVB = dV.subarray(g * S * hd, (g * S + sb) * hd);
          kern.matmul({ a: pB, b: dOB, c: dVB, m: sb, n: hd, k: rb, transA: true, accumulate: acc }); // P^T dO
          kern.matmul({ a: dOB, b: vh.subarray(kvAt, kvAt + sb * hd), c: dPB, m: rb, n: sb, k: hd, transB: true }); // dO V^T
          kern.causalSoftmaxBackward(pB, dPB, rb, sb, scale); // dP -> d(scores before scaling)
          kern.matmul({ a: dPB, b: kh.subarray(kvAt, kvAt + sb * hd), c: dQ.subarray(r0 * hd, (r0 + rb) * hd), m: rb, n: hd, k: sb }); // dS K
          kern.matmul({ a: dPB, b: qB, c: dKB, m: sb, n: hd, k: rb, transA: true, accumulate: acc }); // dS^T Q
        }
        if (dq) copyRows(heap, dQ, 0, hd, dq.grad, b * T * qw + h * hd, qw, T, hd, dq.accumulate);
      }
      for (let g = 0; g < nkv; g++) {
        const src = g * S * hd;
        if (lp > 0) {
          const at = (prefix!.index[b]! * nkv + g) * prefix!.seqLen * hd;
          if (prefixGrads!.k) addBlock(dK, src, prefixGrads!.k, at, lp * hd);
          if (prefixGrads!.v) addBlock(dV, src, prefixGrads!.v, at, lp * hd);
        }
        if (dk) copyRows(heap, dK, src + lp * hd, hd, dk.grad, b * T * kw + g * hd, kw, T, hd, dk.accumulate);
        if (dv) copyRows(heap, dV, src + lp * hd, hd, dv.grad, b * T * kw + g * hd, kw, T, hd, dv.accumulate);
      }
    }
    for (const a of [dO, dQ, dP, dK, dV]) tape.release(a);
    for (const [headMajor, t] of [[prefixGrads?.k, prefix?.k], [prefixGrads?.v, prefix?.v]] as const) {
      if (!headMajor || !t) continue;
      for (const p of new Set(prefix!.index)) {
        for (let g = 0; g < nkv; g++) {
          copyRows(heap, headMajor, (p * nkv + g) * prefix!.seqLen * hd, hd, tape.gradOf(t), p * prefix!.seqLen * kw + g * hd, kw, prefix!.lengths[p]!, hd, true);
        }
      }
      tape.release(headMajor);
    }
  });
  return out;
}

/** Scores stored for the first `rows` query rows of one head: blocks of R rows, each rb x (lp + r0 + rb). */
function blockedScoreCount(rows: number, lp: number, R: number): number {
  let n = 0;
  for (let r0 = 0; r0 < rows; r0 += R) {
    const rb = Math.min(R, rows - r0);
    n += rb * (lp + r0 + rb);
  }
  return n;
}

function prefixLength(prefix: AttentionPrefix, b: number): number {
  const p = prefix.index[b];
  if (p === undefined || prefix.lengths[p] === undefined) {
    throw new TroupeError('engine', `attention: query sequence ${b} has no prefix entry (index has ${prefix.index.length}, lengths ${prefix.lengths.length}); give one per sequence`);
  }
  const lp = prefix.lengths[p]!;
  if (lp > prefix.seqLen) throw new TroupeError('engine', `attention: prefix length ${lp} exceeds the prefix rows per sequence (${prefix.seqLen})`);
  return lp;
}

function maxOf(values: readonly number[]): number {
  let m = 0;
  for (const v of values) m = Math.max(m, v);
  return m;
}
