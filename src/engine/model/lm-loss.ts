import { TroupeError } from '../../util/errors.js';
import { scale } from '../autograd/elementwise.js';
import { logSoftmaxGather } from '../autograd/log-softmax-gather.js';
import { mean } from '../autograd/reduce.js';
import type { Tape } from '../autograd/tape.js';
import type { Tensor } from '../tensor.js';
import type { LlamaModel } from './llama-model.js';

/**
 * Next-token cross-entropy (mean negative log-likelihood, nats) over B rows of T+1 ids: the
 * model reads ids 0..T-1 of each row and is scored on ids 1..T. The pretraining / supervised
 * loss; RL losses use tokenLogprobs instead.
 */
export function languageModelLoss(tape: Tape, model: LlamaModel, rows_B_T1: readonly (readonly number[])[], adapter?: string): Tensor {
  const inputs = rows_B_T1.map((r) => r.slice(0, -1));
  const targets = rows_B_T1.flatMap((r) => r.slice(1));
  if (targets.length === 0) throw new TroupeError('input', 'languageModelLoss needs rows of at least 2 tokens');
  const logprobs = logSoftmaxGather(tape, model.forward(tape, inputs, { adapter }), targets);
  return scale(tape, mean(tape, logprobs), -1);
}
