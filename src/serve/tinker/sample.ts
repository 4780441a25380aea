/**
 * Tinker's `asample` on the embedded engine: `num_samples` continuations of one prompt in one
 * Sampler call (the prompt is prefilled once), each with the logprob of every sampled token
 * at temperature 1 (what forward_backward computes for the same weights, so the sampler's
 * logprobs can serve as the behaviour policy of importance_sampling / ppo). Prompt logprobs
 * (`compute_logprobs`) come from the same forward pass the trainer uses.
 */
import { logSoftmaxGather } from '../../engine/autograd/log-softmax-gather.js';
import { Tape } from '../../engine/autograd/tape.js';
import type { LlamaModel } from '../../engine/model/llama-model.js';
import type { SampleResponse } from '../../tinker/types.js';
import { topLogprobs } from '../top-logprobs.js';
import type { LoadedBase } from './base-models.js';
import type { CheckedSampleRequest } from './check-sample-request.js';
import { badField } from './tinker-api-error.js';

/** Log p(tokens[t] | tokens[<t]) for t >= 1; null for the first token, which has no context. */
export function promptLogprobs(model: LlamaModel, tokens: readonly number[], adapter: string | undefined): Array<number | null> {
  if (tokens.length < 2) return tokens.map(() => null);
  const tape = new Tape(model.kernels, { grad: false });
  try {
    const logits = model.forward(tape, [tokens.slice(0, -1)], { adapter });
    return [null, ...Array.from(logSoftmaxGather(tape, logits, tokens.slice(1)).data)];
  } finally {
    tape.dispose();
  }
}

/** Runs a request checkSampleRequest accepted (at submit time, so nothing here is the client's fault but the engine's). */
export function sample(base: LoadedBase, adapter: string | undefined, request: CheckedSampleRequest, seed: number): SampleResponse {
  const { prompt, generate } = request;
  const room = generate.maxTokens > 0;
  const [generations] = room ? base.sampler.generate([{ ...generate, seed: request.seed ?? seed, ...(adapter ? { adapter } : {}) }]) : [[]];
  const full = { stop_reason: 'length' as const, tokens: [], logprobs: [] };
  const sequences = room ? generations!.map((g) => {
    if (g.finishReason === 'error') throw badField('prompt', g.error ?? 'generation failed');
    return { stop_reason: g.finishReason, tokens: g.ids, logprobs: g.logprobs };
  }) : Array.from({ length: generate.n }, () => full);
  const k = request.topkPromptLogprobs;
  return {
    sequences,
    ...(request.promptLogprobs ? { prompt_logprobs: promptLogprobs(base.model, prompt, adapter) } : {}),
    ...(k > 0
      ? { topk_prompt_logprobs: [null, ...topLogprobs(base.model, { promptIds: prompt.slice(0, 1), ids: prompt.slice(1), k, adapter }).map((row) => row.map((a) => [a.id, a.logprob] as const))] }
      : {}),
  };
}
