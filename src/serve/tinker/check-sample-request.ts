/**
 * asample's body, checked against the model and the server's limits before it is queued: a
 * typed 400 naming the field for any wrong type, out-of-range value or over-long request.
 *
 *   const checked = checkSampleRequest(body, base, limits);   // then sample(base, adapter, checked, seed)
 *
 * A prompt plus `max_tokens` past the context is an error naming both numbers (as the hosted
 * service answers), except for a request that scores the prompt (`prompt_logprobs` or
 * `topk_prompt_logprobs`, what the SDK's compute_logprobs sends): its prompt may fill the context,
 * and only what fits is sampled. A sample ends at any of the model's stop tokens (the tokenizer's
 * EOS and generation_config.json's eos_token_id) and at each `stop` string or token id given.
 */
import type { GenerateRequest } from '../../engine/sampling/types.js';
import { LIMIT_FLAGS, type TinkerLimits } from './limits.js';
import { bool, describe, int, isObject, num, object, type Body } from './request-fields.js';
import { badField } from './tinker-api-error.js';

/** max_tokens when the request gives none (vLLM's default). */
export const DEFAULT_MAX_TOKENS = 16;
/** Most alternatives per prompt position for topk_prompt_logprobs. */
export const MAX_TOPK_PROMPT_LOGPROBS = 20;

/** What sample() needs of the base model. */
export interface SampleModelFacts {
  readonly vocab: number;
  readonly context: number;
  /** The model's own stop tokens (EOS, generation_config's eos ids). */
  readonly stopIds: readonly number[];
}

export interface CheckedSampleRequest {
  readonly prompt: number[];
  /** Samples, without seed and adapter (sample() adds them); maxTokens 0 = nothing fits (scoring only). */
  readonly generate: Omit<GenerateRequest, 'seed' | 'adapter'>;
  readonly seed?: number;
  readonly promptLogprobs: boolean;
  readonly topkPromptLogprobs: number;
}

/** A ModelInput's tokens: every chunk `encoded_text` with integer ids inside the vocabulary. */
export function modelInputTokens(value: unknown, field: string, vocab: number): number[] {
  const chunks = isObject(value) ? value.chunks : undefined;
  if (!Array.isArray(chunks)) throw badField(field, 'must be a ModelInput {chunks: [{type: "encoded_text", tokens: [...]}]}');
  const tokens: number[] = [];
  chunks.forEach((chunk: unknown, c) => {
    if (!isObject(chunk) || (chunk.type !== undefined && chunk.type !== 'encoded_text')) {
      throw badField(`${field}.chunks[${c}]`, `only {type: "encoded_text", tokens: [...]} chunks are supported, got ${describe(isObject(chunk) ? chunk.type : chunk)}`);
    }
    if (!Array.isArray(chunk.tokens)) throw badField(`${field}.chunks[${c}].tokens`, `must be a list of token ids, got ${describe(chunk.tokens)}`);
    for (const t of chunk.tokens as unknown[]) {
      if (typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t >= vocab) throw badField(field, `token id ${describe(t)} is outside the vocabulary 0..${vocab - 1}`);
      tokens.push(t);
    }
  });
  return tokens;
}

function stops(params: Body, vocab: number): { strings: string[]; ids: number[] } {
  const value = params.stop;
  if (value === undefined || value === null) return { strings: [], ids: [] };
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [value];
  if (list.every((s) => typeof s === 'string')) {
    if (list.some((s) => s === '')) throw badField('sampling_params.stop', 'stop strings must not be empty');
    return { strings: list as string[], ids: [] };
  }
  const bad = list.find((t) => typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t >= vocab);
  if (bad !== undefined) throw badField('sampling_params.stop', `must be a string, a list of strings or a list of token ids in 0..${vocab - 1}; got ${describe(bad)}`);
  return { strings: [], ids: list as number[] };
}

export function checkSampleRequest(body: Body, model: SampleModelFacts, limits: TinkerLimits): CheckedSampleRequest {
  const { vocab, context } = model;
  const prompt = modelInputTokens(body.prompt, 'prompt', vocab);
  if (prompt.length === 0) throw badField('prompt', 'has no tokens; give at least one');
  const promptLogprobs = bool(body, 'prompt_logprobs', 'prompt_logprobs', false);
  const topkPromptLogprobs = int(body, 'topk_prompt_logprobs', 'topk_prompt_logprobs', { min: 0, max: MAX_TOPK_PROMPT_LOGPROBS, fallback: 0 });
  const scoring = promptLogprobs || topkPromptLogprobs > 0;
  if (prompt.length > context) throw badField('prompt', `has ${prompt.length} tokens; the model's context is ${context}`);
  const n = int(body, 'num_samples', 'num_samples', { min: 1, max: limits.maxNumSamples, maxIs: `this server's ${LIMIT_FLAGS.maxNumSamples}`, fallback: 1 });
  const p = object(body, 'sampling_params', 'sampling_params');
  const maxTokens = int(p, 'sampling_params.max_tokens', 'max_tokens', { min: 1, max: limits.maxTokens, maxIs: `this server's ${LIMIT_FLAGS.maxTokens}`, fallback: DEFAULT_MAX_TOKENS });
  if (prompt.length + maxTokens > context && !scoring) {
    throw badField('sampling_params.max_tokens', `the prompt has ${prompt.length} tokens and max_tokens is ${maxTokens}: ${prompt.length + maxTokens} tokens exceed the model's context of ${context}; ask for at most ${Math.max(0, context - prompt.length)} new tokens or shorten the prompt`);
  }
  const temperature = num(p, 'sampling_params.temperature', 'temperature', { min: 0, max: 100, fallback: 1 });
  const topP = num(p, 'sampling_params.top_p', 'top_p', { above: 0, max: 1, fallback: 1 });
  const topK = int(p, 'sampling_params.top_k', 'top_k', { min: -1, max: vocab, fallback: -1 });
  if (topK === 0) throw badField('sampling_params.top_k', 'must be -1 (no limit) or a positive integer, got 0');
  const seed = p.seed === undefined || p.seed === null ? undefined : int(p, 'sampling_params.seed', 'seed', { min: 0, max: Number.MAX_SAFE_INTEGER });
  const stop = stops(p, vocab);
  // The model's own stop tokens end a sample whatever `stop` adds (vLLM's rule, unless ignore_eos).
  const stopIds = [...new Set([...model.stopIds, ...stop.ids])];
  return {
    prompt,
    promptLogprobs,
    topkPromptLogprobs,
    ...(seed === undefined ? {} : { seed }),
    generate: {
      promptIds: prompt,
      n,
      maxTokens: Math.min(maxTokens, context - prompt.length),
      temperature,
      topP,
      topK: topK === -1 ? 0 : topK,
      ...(stop.strings.length ? { stop: stop.strings } : {}),
      stopIds,
    },
  };
}
