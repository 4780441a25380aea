import { TroupeError } from '../../util/errors.js';
import type { Tensor } from '../tensor.js';
import { asMatrix, expectEqual } from './check.js';
import type { Tape } from './tape.js';

/**
 * Per-row log-probability of a target token: out[i] = log_softmax(logits[i])[targets[i]].
 * With `entropy`, also writes each row's entropy -sum p log p (a metric: no gradient).
 * Backward: d logits[i] = g[i] * (onehot(targets[i]) - softmax(logits[i])).
 */
export function logSoftmaxGather(tape: Tape, logits: Tensor, targets: ArrayLike<number>, options: { entropy?: Float32Array } = {}): Tensor {
  const [rows, vocab] = asMatrix('logSoftmaxGather', 'logits', logits);
  expectEqual('logSoftmaxGather', 'the number of targets', targets.length, rows);
  const target = Int32Array.from(targets as ArrayLike<number>);
  for (const t of target) {
    if (t < 0 || t >= vocab) throw new TroupeError('engine', `logSoftmaxGather: target token ${t} is outside the vocabulary 0..${vocab - 1}`);
  }
  const logp = tape.scratch(logits.size);
  logp.set(logits.data);
  if (options.entropy) expectEqual('logSoftmaxGather', 'the entropy array length', options.entropy.length, rows);
  tape.kernels.logSoftmax(logp, rows, vocab, options.entropy);
  const out = tape.output([rows], [logits]);
  for (let i = 0; i < rows; i++) out.data[i] = logp[i * vocab + target[i]!]!;
  tape.onBackward(out, () => {
    const g = out.grad!;
    const { grad: dl, accumulate } = tape.gradSink(logits);
    for (let i = 0; i < rows; i++) {
      const gi = g[i]!;
      const base = i * vocab;
      if (!accumulate) dl.fill(0, base, base + vocab);
      if (gi === 0) continue;
      for (let j = 0; j < vocab; j++) dl[base + j] = dl[base + j]! - gi * Math.exp(logp[base + j]!);
      dl[base + target[i]!] = dl[base + target[i]!]! + gi;
    }
  });
  return out;
}
