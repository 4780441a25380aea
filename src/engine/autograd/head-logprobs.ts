import { TroupeError } from '../../util/errors.js';
import { checkedLogitMask, maskLogits } from '../logit-mask.js';
import type { Tensor } from '../tensor.js';
import { weightMatmul } from '../weight-ops.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

/**
 * A LoRA pair on the head, as loraLinear applies it: logits += down B^T, where down = scale x A^T
 * (N, r) is computed (and differentiated) by the caller and B is (vocab, r).
 */
export interface HeadLowRank {
  readonly down: Tensor;
  readonly b: Tensor;
}

/** Logits held at once: 2^26 float32 = 256 MB (441 rows of a 151936-token vocabulary). */
const LOGITS_BUDGET = 1 << 26;

/**
 * The output head fused with logSoftmaxGather: out[i] = log_softmax(x[i] W^T)[targets[i]]
 * for x (N, hidden) and W (vocab, hidden), holding at most `chunkRows` rows of logits (default
 * 256 MB of them). When all N rows fit, their log-softmax is kept from forward to backward,
 * which turns it into dx = dlogits W (and dW += dlogits^T x when W trains) in place: two head
 * products per row, each with all rows at once (the widest M, the best rate). When they do not
 * fit (a 151936-token vocabulary and 1024 rows would need ~1.9 GB for logits, log-softmax
 * and gradient), forward keeps nothing and backward recomputes each chunk's log-softmax: a
 * third head product, for memory bounded by one chunk.
 * W may be a frozen bf16 weight. `entropy` as in logSoftmaxGather (a metric, no gradient).
 * `logitMask`: ids whose logits become MASKED_LOGIT before the log-softmax (the sampler's mask,
 * logit-mask.ts), so they get probability 0 and no gradient.
 */
export function headLogprobs(tape: Tape, x: Tensor, w: Tensor, targets: ArrayLike<number>, options: { entropy?: Float32Array; chunkRows?: number; logitMask?: ArrayLike<number>; lowRank?: HeadLowRank } = {}): Tensor {
  const [rows, hidden] = asMatrix('headLogprobs', 'x', x);
  const [vocab, inW] = asMatrix('headLogprobs', 'weight', w);
  expectEqual('headLogprobs', 'the weight input size', inW, hidden);
  expectEqual('headLogprobs', 'the number of targets', targets.length, rows);
  const low = options.lowRank;
  const rank = low ? checkLowRank(low, rows, vocab) : 0;
  const target = Int32Array.from(targets as ArrayLike<number>);
  for (const t of target) {
    if (t < 0 || t >= vocab) throw new TroupeError('engine', `headLogprobs: target token ${t} is outside the vocabulary 0..${vocab - 1}`);
  }
  if (options.entropy) expectEqual('headLogprobs', 'the entropy array length', options.entropy.length, rows);
  const mask = checkedLogitMask(options.logitMask ?? [], vocab);
  const chunk = Math.max(1, options.chunkRows ?? Math.floor(LOGITS_BUDGET / Math.max(1, vocab)));
  const k = tape.kernels;
  /** Log-softmax of the logits of rows [r0, r1) into `logp` ((r1 - r0) x vocab), and their entropies when asked. */
  const chunkLogp = (r0: number, r1: number, logp: Float32Array, entropy?: Float32Array): void => {
    weightMatmul(k, { a: x.data.subarray(r0 * hidden, r1 * hidden), w, c: logp, m: r1 - r0, n: vocab, k: hidden, transB: true });
    if (low) k.matmul({ a: low.down.data.subarray(r0 * rank, r1 * rank), b: low.b.data, c: logp, m: r1 - r0, n: vocab, k: rank, transB: true, accumulate: true });
    maskLogits(logp, r1 - r0, vocab, mask);
    k.logSoftmax(logp, r1 - r0, vocab, entropy?.subarray(r0, r1));
  };
  const out = tape.output([rows], low ? [x, w, low.down, low.b] : [x, w]);
  const trains = tape.recording && (x.requiresGrad || w.requiresGrad || (low !== undefined && (low.down.requiresGrad || low.b.requiresGrad)));
  // All rows in one chunk and a backward to come: keep their log-softmax for it (the tape
  // owns it, so it goes back at dispose even if backward never runs).
  const kept = trains && chunk >= rows ? tape.scratch(rows * vocab) : undefined;
  const logp = kept ?? tape.temp(Math.min(chunk, rows) * vocab);
  for (let r0 = 0; r0 < rows; r0 += chunk) {
    const r1 = Math.min(rows, r0 + chunk);
    chunkLogp(r0, r1, logp, options.entropy);
    for (let i = r0; i < r1; i++) out.data[i] = logp[(i - r0) * vocab + target[i]!]!;
  }
  if (!kept) tape.release(logp);
  tape.onBackward(out, () => {
    const g = out.grad!;
    const dl = kept ?? tape.temp(Math.min(chunk, rows) * vocab);
    const dx = x.requiresGrad ? tape.gradSink(x) : undefined;
    for (let r0 = 0; r0 < rows; r0 += chunk) {
      const r1 = Math.min(rows, r0 + chunk);
      if (!kept) chunkLogp(r0, r1, dl);
      // d logits[i] = g[i] * (onehot(target[i]) - softmax(logits[i])), in place over logp.
      k.logSoftmaxGatherBackward(dl, r1 - r0, vocab, target.subarray(r0, r1), g.subarray(r0, r1));
      const dlChunk = dl.subarray(0, (r1 - r0) * vocab);
      if (dx) weightMatmul(k, { a: dlChunk, w, c: dx.grad.subarray(r0 * hidden, r1 * hidden), m: r1 - r0, n: hidden, k: vocab, accumulate: dx.accumulate });
      if (w.requiresGrad) {
        k.matmul({ a: dlChunk, b: x.data.subarray(r0 * hidden, r1 * hidden), c: tape.gradOf(w), m: vocab, n: hidden, k: r1 - r0, transA: true, accumulate: true });
      }
      if (low?.down.requiresGrad) k.matmul({ a: dlChunk, b: low.b.data, c: tape.gradOf(low.down).subarray(r0 * rank, r1 * rank), m: r1 - r0, n: rank, k: vocab, accumulate: true });
      if (low?.b.requiresGrad) k.matmul({ a: dlChunk, b: low.down.data.subarray(r0 * rank, r1 * rank), c: tape.gradOf(low.b), m: vocab, n: rank, k: r1 - r0, transA: true, accumulate: true });
    }
    if (!kept) tape.release(dl);
  });
  return out;
}

/** The rank of a head pair whose shapes fit `rows` rows and `vocab` outputs. */
function checkLowRank(low: HeadLowRank, rows: number, vocab: number): number {
  const [downRows, rank] = asMatrix('headLogprobs', 'lowRank.down', low.down);
  const [outB, rankB] = asMatrix('headLogprobs', 'lowRank.b', low.b);
  expectEqual('headLogprobs', 'the rows of lowRank.down', downRows, rows);
  expectEqual('headLogprobs', 'the output size of lowRank.b', outB, vocab);
  expectEqual('headLogprobs', 'the rank of lowRank.b', rankB, rank);
  return rank;
}
