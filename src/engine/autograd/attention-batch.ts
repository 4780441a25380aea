import type { GradientSink } from '../kernels/types.js';
import type { Tensor } from '../tensor.js';
import type { AttentionOptions, AttentionPrefix } from './attention.js';
import type { Tape } from './tape.js';

/**
 * The whole batch in one kernel call each way (the native backend): the same per-sequence work
 * as the loop of `attention`, with the gathers and scatters in the kernel.
 */
export function batchAttention(tape: Tape, a: {
  q: Tensor; k: Tensor; v: Tensor; out: Tensor; prefix: AttentionPrefix | undefined; prefixLen: readonly number[];
  scores: number; options: AttentionOptions; scale: number; rowBlock: number;
}): void {
  const { q, k, v, out, prefix, options } = a;
  const kern = tape.kernels;
  const B = options.batch;
  const meta = new Int32Array(2 * B);
  meta.set(a.prefixLen);
  if (prefix) meta.set(prefix.index, B);
  // The scores are the only state the backward keeps (it reads q, k, v and the prefix again);
  // without a backward (a reference or sampling pass) they go back to the pool at once.
  const keep = out.requiresGrad;
  const none = new Float32Array(0);
  const args = {
    q: q.data, k: k.data, v: v.data, prefixK: prefix?.k.data ?? none, prefixV: prefix?.v.data ?? none,
    probs: keep ? tape.scratch(a.scores) : tape.temp(a.scores),
    batch: B, seqLen: options.seqLen, heads: options.heads, kvHeads: options.kvHeads, headDim: options.headDim,
    rowBlock: a.rowBlock, scale: a.scale, prefixSeqLen: prefix?.seqLen ?? 0, prefixCount: prefix?.lengths.length ?? 0, meta,
  };
  kern.attentionBatchForward!({ ...args, out: out.data });
  if (!keep) {
    tape.release(args.probs);
    return;
  }
  tape.onBackward(out, () => {
    kern.attentionBatchBackward!({
      ...args,
      dOut: out.grad!,
      ...gradientSinks(tape, q, k, v, prefix),
      dPrefixK: prefix?.k.requiresGrad ? tape.gradOf(prefix.k) : undefined,
      dPrefixV: prefix?.v.requiresGrad ? tape.gradOf(prefix.v) : undefined,
    });
  });
}

/**
 * Where attention's backward writes the gradients of q, k and v (none for an input that needs
 * none). Each row belongs to one sequence and is written once, so an input with no gradient yet
 * gets it written directly, unless a tensor is passed twice: then every input adds.
 */
export function gradientSinks(tape: Tape, q: Tensor, k: Tensor, v: Tensor, prefix: AttentionPrefix | undefined): { dq?: GradientSink; dk?: GradientSink; dv?: GradientSink } {
  const inputs = prefix ? [q, k, v, prefix.k, prefix.v] : [q, k, v];
  const distinct = new Set(inputs).size === inputs.length;
  const sink = (t: Tensor): GradientSink | undefined => (!t.requiresGrad ? undefined : distinct ? tape.gradSink(t) : { grad: tape.gradOf(t), accumulate: true });
  return { dq: sink(q), dk: sink(k), dv: sink(v) };
}
