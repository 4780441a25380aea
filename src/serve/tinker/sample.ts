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
import type { GenerateRequest } from '../../engine/sampling/types.js';
import type { SampleRequest, SampleResponse } from '../../tinker/types.js';
import { topLogprobs } from '../top-logprobs.js';
import type { LoadedBase } from './base-models.js';
import { badField } from './tinker-api-error.js';

/** max_tokens when the request gives none (vLLM's default). */
const DEFAULT_MAX_TOKENS = 16;

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

function checkSampleRequest(request: SampleRequest, model: LlamaModel): { prompt: number[]; generate: Omit<GenerateRequest, 'seed' | 'adapter'> } {
  const V = model.config.vocab_size;
  const context = model.config.max_position_embeddings;
  const chunks = request.prompt?.chunks;
  if (!Array.isArray(chunks)) throw badField('prompt', 'must be a ModelInput {chunks: [{type: "encoded_text", tokens: [...]}]}');
  const prompt = chunks.flatMap((c) => (Array.isArray(c.tokens) ? [...c.tokens] : []));
  if (prompt.length === 0) throw badField('prompt', 'has no tokens; give at least one');
  const bad = prompt.find((t) => !Number.isInteger(t) || t < 0 || t >= V);
  if (bad !== undefined) throw badField('prompt', `token id ${bad} is outside the vocabulary 0..${V - 1}`);
  // A request for prompt logprobs (compute_logprobs) may fill the context: it scores, and samples nothing.
  const scoring = request.prompt_logprobs === true || (request.topk_prompt_logprobs ?? 0) > 0;
  if (prompt.length > context || (prompt.length === context && !scoring)) throw badField('prompt', `has ${prompt.length} tokens; the model's context is ${context}, leaving no room to sample`);
  const p = request.sampling_params ?? {};
  const n = request.num_samples ?? 1;
  if (!Number.isInteger(n) || n < 1) throw badField('num_samples', `must be an integer >= 1, got ${JSON.stringify(n)}`);
  const maxTokens = p.max_tokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw badField('sampling_params.max_tokens', `must be an integer >= 1, got ${JSON.stringify(maxTokens)}`);
  const temperature = p.temperature ?? 1;
  if (!(temperature >= 0)) throw badField('sampling_params.temperature', `must be >= 0, got ${JSON.stringify(temperature)}`);
  const topP = p.top_p ?? 1;
  if (!(topP > 0 && topP <= 1)) throw badField('sampling_params.top_p', `must be in (0, 1], got ${JSON.stringify(topP)}`);
  const topK = p.top_k ?? -1;
  if (!Number.isInteger(topK) || topK < -1 || topK === 0) throw badField('sampling_params.top_k', `must be -1 (no limit) or a positive integer, got ${JSON.stringify(topK)}`);
  const stops = p.stop === undefined || p.stop === null ? [] : typeof p.stop === 'string' ? [p.stop] : [...p.stop];
  const stopIds = stops.filter((s): s is number => typeof s === 'number');
  const stopStrings = stops.filter((s): s is string => typeof s === 'string');
  const badStop = stopIds.find((t) => !Number.isInteger(t) || t < 0 || t >= V);
  if (badStop !== undefined) throw badField('sampling_params.stop', `stop token ${badStop} is outside the vocabulary 0..${V - 1}`);
  return {
    prompt,
    generate: {
      promptIds: prompt,
      n,
      maxTokens: Math.min(maxTokens, context - prompt.length),
      temperature,
      topP,
      topK: topK === -1 ? 0 : topK,
      ...(stopStrings.length ? { stop: stopStrings } : {}),
      ...(stopIds.length ? { stopIds } : {}),
    },
  };
}

export function sample(base: LoadedBase, adapter: string | undefined, request: SampleRequest, seed: number): SampleResponse {
  const { prompt, generate } = checkSampleRequest(request, base.model);
  const room = generate.maxTokens > 0;
  const [generations] = room ? base.sampler.generate([{ ...generate, seed: request.sampling_params?.seed ?? seed, ...(adapter ? { adapter } : {}) }]) : [[]];
  const full = { stop_reason: 'length' as const, tokens: [], logprobs: [] };
  const sequences = room ? generations!.map((g) => {
    if (g.finishReason === 'error') throw badField('prompt', g.error ?? 'generation failed');
    return { stop_reason: g.finishReason, tokens: g.ids, logprobs: g.logprobs };
  }) : Array.from({ length: generate.n }, () => full);
  const k = request.topk_prompt_logprobs ?? 0;
  return {
    sequences,
    ...(request.prompt_logprobs ? { prompt_logprobs: promptLogprobs(base.model, prompt, adapter) } : {}),
    ...(k > 0
      ? { topk_prompt_logprobs: [null, ...topLogprobs(base.model, { promptIds: prompt.slice(0, 1), ids: prompt.slice(1), k, adapter }).map((row) => row.map((a) => [a.id, a.logprob] as const))] }
      : {}),
  };
}
