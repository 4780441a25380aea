import { TroupeError } from '../../util/errors.js';
import type { Tensor } from '../tensor.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

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
}

/**
 * Causal multi-head attention with grouped-query heads.
 * q (B*T, heads*hd), k and v (B*T, kvHeads*hd), all laid out [token, head, hd].
 * Query t of sequence b sees its prefix (length Lp) and its own keys 0..t: it sits at key
 * position Lp + t, which is causalSoftmax's offset. Returns (B*T, heads*hd).
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

  // Per-sequence key counts and buffer offsets (sequences may see different prefix lengths).
  const prefixLen: number[] = [];
  const kOff: number[] = [];
  const pOff: number[] = [];
  let kTotal = 0;
  let pTotal = 0;
  for (let b = 0; b < B; b++) {
    const lp = prefix ? prefixLength(prefix, b) : 0;
    prefixLen.push(lp);
    kOff.push(kTotal);
    pOff.push(pTotal);
    kTotal += nkv * (lp + T) * hd;
    pTotal += nh * T * (lp + T);
  }

  const inputs = prefix ? [q, k, v, prefix.k, prefix.v] : [q, k, v];
  const out = tape.output([B * T, qw], inputs);
  if (B * T === 0) return out;
  // Head-major copies (h, t, d) so each head is a contiguous matrix for the matmul kernels.
  const qh = tape.scratch(B * nh * T * hd);
  const kh = tape.scratch(kTotal);
  const vh = tape.scratch(kTotal);
  const probs = tape.scratch(pTotal);
  const oh = tape.temp(T * hd);

  for (let b = 0; b < B; b++) {
    const lp = prefixLen[b]!;
    const S = lp + T;
    const qBase = b * nh * T * hd;
    for (let t = 0; t < T; t++) {
      const row = (b * T + t) * qw;
      for (let h = 0; h < nh; h++) qh.set(q.data.subarray(row + h * hd, row + h * hd + hd), qBase + (h * T + t) * hd);
    }
    for (let j = 0; j < S; j++) {
      const [srcK, srcV, row] = keyRow(prefix, k, v, b, j, lp, T);
      for (let g = 0; g < nkv; g++) {
        const dst = kOff[b]! + (g * S + j) * hd;
        kh.set(srcK.subarray(row * kw + g * hd, row * kw + g * hd + hd), dst);
        vh.set(srcV.subarray(row * kw + g * hd, row * kw + g * hd + hd), dst);
      }
    }
    for (let h = 0; h < nh; h++) {
      const g = Math.floor(h / rep);
      const qH = qh.subarray(qBase + h * T * hd, qBase + (h + 1) * T * hd); // (T, hd)
      const kH = kh.subarray(kOff[b]! + g * S * hd, kOff[b]! + (g + 1) * S * hd); // (S, hd)
      const vH = vh.subarray(kOff[b]! + g * S * hd, kOff[b]! + (g + 1) * S * hd); // (S, hd)
      const pH = probs.subarray(pOff[b]! + h * T * S, pOff[b]! + (h + 1) * T * S); // (T, S)
      kern.matmul({ a: qH, b: kH, c: pH, m: T, n: S, k: hd, transB: true });
      kern.causalSoftmax(pH, T, S, lp, scale);
      kern.matmul({ a: pH, b: vH, c: oh, m: T, n: hd, k: S });
      for (let t = 0; t < T; t++) out.data.set(oh.subarray(t * hd, t * hd + hd), (b * T + t) * qw + h * hd);
    }
  }
  tape.release(oh);

  tape.onBackward(out, () => {
    const dOut = out.grad!;
    const dO = tape.temp(T * hd);
    const dQ = tape.temp(T * hd);
    const dP = tape.temp(T * (T + maxOf(prefixLen)));
    const dK = tape.temp(nkv * (T + maxOf(prefixLen)) * hd);
    const dV = tape.temp(dK.length);
    for (let b = 0; b < B; b++) {
      const lp = prefixLen[b]!;
      const S = lp + T;
      const qBase = b * nh * T * hd;
      dK.fill(0);
      dV.fill(0);
      for (let h = 0; h < nh; h++) {
        const g = Math.floor(h / rep);
        const qH = qh.subarray(qBase + h * T * hd, qBase + (h + 1) * T * hd);
        const kH = kh.subarray(kOff[b]! + g * S * hd, kOff[b]! + (g + 1) * S * hd);
        const vH = vh.subarray(kOff[b]! + g * S * hd, kOff[b]! + (g + 1) * S * hd);
        const pH = probs.subarray(pOff[b]! + h * T * S, pOff[b]! + (h + 1) * T * S);
        const dKH = dK.subarray(g * S * hd, (g + 1) * S * hd);
        const dVH = dV.subarray(g * S * hd, (g + 1) * S * hd);
        const dPH = dP.subarray(0, T * S);
        for (let t = 0; t < T; t++) dO.set(dOut.subarray((b * T + t) * qw + h * hd, (b * T + t) * qw + h * hd + hd), t * hd);
        kern.matmul({ a: pH, b: dO, c: dVH, m: S, n: hd, k: T, transA: true, accumulate: true }); // P^T dO
        kern.matmul({ a: dO, b: vH, c: dPH, m: T, n: S, k: hd, transB: true }); // dO V^T
        kern.causalSoftmaxBackward(pH, dPH, T, S, scale); // dP -> d(scores before scaling)
        kern.matmul({ a: dPH, b: kH, c: dQ, m: T, n: hd, k: S }); // dS K
        kern.matmul({ a: dPH, b: qH, c: dKH, m: S, n: hd, k: T, transA: true, accumulate: true }); // dS^T Q
        if (q.requiresGrad) {
          const dq = tape.gradOf(q);
          for (let t = 0; t < T; t++) addInto(dq, (b * T + t) * qw + h * hd, dQ, t * hd, hd);
        }
      }
      for (let j = 0; j < S; j++) {
        const inPrefix = j < lp;
        const kT = inPrefix ? prefix!.k : k;
        const vT = inPrefix ? prefix!.v : v;
        const row = inPrefix ? prefix!.index[b]! * prefix!.seqLen + j : b * T + (j - lp);
        for (let g = 0; g < nkv; g++) {
          const src = (g * S + j) * hd;
          if (kT.requiresGrad) addInto(tape.gradOf(kT), row * kw + g * hd, dK, src, hd);
          if (vT.requiresGrad) addInto(tape.gradOf(vT), row * kw + g * hd, dV, src, hd);
        }
      }
    }
    for (const a of [dO, dQ, dP, dK, dV]) tape.release(a);
  });
  return out;
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

/** Source arrays and row of key position j of sequence b: prefix rows first, then its own. */
function keyRow(prefix: AttentionPrefix | undefined, k: Tensor, v: Tensor, b: number, j: number, lp: number, T: number): [Float32Array, Float32Array, number] {
  if (j < lp) return [prefix!.k.data, prefix!.v.data, prefix!.index[b]! * prefix!.seqLen + j];
  return [k.data, v.data, b * T + (j - lp)];
}

function addInto(dst: Float32Array, dstAt: number, src: Float32Array, srcAt: number, n: number): void {
  for (let i = 0; i < n; i++) dst[dstAt + i] = dst[dstAt + i]! + src[srcAt + i]!;
}

function maxOf(values: readonly number[]): number {
  let m = 0;
  for (const v of values) m = Math.max(m, v);
  return m;
}
