/**
 * asample's body as a zod schema, checked against the model and the server's limits before it
 * is queued: a typed 400 naming the field for any wrong type, out-of-range value or over-long
 * request.
 *
 *   const checked = checkSampleRequest(body, base, limits);   // then sample(base, adapter, checked, seed)
 *
 * A prompt plus `max_tokens` past the context is an error naming both numbers (as the hosted
 * service answers), except for a request that scores the prompt (`prompt_logprobs` or
 * `topk_prompt_logprobs`, what the SDK's compute_logprobs sends): its prompt may fill the context,
 * and only what fits is sampled. A sample ends at any of the model's stop tokens (the tokenizer's
 * EOS and generation_config.json's eos_token_id) and at each `stop` string or token id given.
 */
import { z } from 'zod';
import type { GenerateRequest } from '../../engine/sampling/types.js';
import { LIMIT_FLAGS, type TinkerLimits } from './limits.js';
import { describe, finite, flag, integer, isObject, optional, parseTinker, section, withDefault, type Body } from './request-fields.js';

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

/** A token id of a vocabulary of `vocab` entries. */
function tokenId(vocab: number) {
  return z.number({ error: (issue) => `token id ${describe(issue.input)} is outside the vocabulary 0..${vocab - 1}` }).int().min(0).max(vocab - 1);
}

const ONLY_TEXT = 'only {type: "encoded_text", tokens: [...]} chunks are supported';

/** A ModelInput `{chunks: [{type: "encoded_text", tokens: [...]}]}`, read as its token ids in order. */
export function modelInput(vocab: number) {
  const chunk = z
    .looseObject({ type: z.unknown().optional() }, { error: (issue) => `${ONLY_TEXT}, got ${describe(issue.input)}` })
    .refine((c) => c.type === undefined || c.type === 'encoded_text', { error: (issue) => `${ONLY_TEXT}, got ${describe(isObject(issue.input) ? issue.input.type : issue.input)}`, abort: true })
    .pipe(z.looseObject({ type: z.unknown().optional(), tokens: z.array(tokenId(vocab), { error: (issue) => `must be a list of token ids, got ${describe(issue.input)}` }) }));
  const chunks = z.array(chunk, { error: (issue) => `must be a list of {type: "encoded_text", tokens: [...]} chunks, got ${describe(issue.input)}` });
  return z
    .looseObject({ chunks }, { error: () => 'must be a ModelInput {chunks: [{type: "encoded_text", tokens: [...]}]}' })
    .transform((input) => input.chunks.flatMap((c) => c.tokens));
}

/** `stop`: a string, a list of strings, or stop token ids (one or a list). */
function stopField(vocab: number) {
  const id = z.number().int().min(0).max(vocab - 1);
  const forms = z.union([z.string(), z.array(z.string()), id, z.array(id)], {
    error: (issue) => `must be a string, a list of strings or a list of token ids in 0..${vocab - 1}; got ${describe(issue.input)}`,
  });
  return optional(forms.refine((s) => s !== '' && !(Array.isArray(s) && (s as unknown[]).includes('')), { error: 'stop strings must not be empty' })).transform((value) => {
    const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
    return list.every((s) => typeof s === 'string') ? { strings: list as string[], ids: [] } : { strings: [], ids: list as number[] };
  });
}

function sampleBody(model: SampleModelFacts, limits: TinkerLimits) {
  const { vocab, context } = model;
  return z
    .looseObject({
      prompt: modelInput(vocab),
      prompt_logprobs: withDefault(flag, false),
      topk_prompt_logprobs: withDefault(integer({ min: 0, max: MAX_TOPK_PROMPT_LOGPROBS }), 0),
      num_samples: withDefault(integer({ min: 1, max: limits.maxNumSamples, maxIs: `this server's ${LIMIT_FLAGS.maxNumSamples}` }), 1),
      sampling_params: section({
        max_tokens: withDefault(integer({ min: 1, max: limits.maxTokens, maxIs: `this server's ${LIMIT_FLAGS.maxTokens}` }), DEFAULT_MAX_TOKENS),
        temperature: withDefault(finite({ min: 0, max: 100 }), 1),
        top_p: withDefault(finite({ above: 0, max: 1 }), 1),
        top_k: withDefault(integer({ min: -1, max: vocab }), -1),
        seed: optional(integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
        stop: stopField(vocab),
      }),
    })
    .superRefine((body, ctx) => {
      const refuse = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
      const n = body.prompt.length;
      const maxTokens = body.sampling_params.max_tokens;
      const scoring = body.prompt_logprobs || body.topk_prompt_logprobs > 0;
      if (n === 0) refuse(['prompt'], 'has no tokens; give at least one');
      else if (n > context) refuse(['prompt'], `has ${n} tokens; the model's context is ${context}`);
      else if (n + maxTokens > context && !scoring) {
        refuse(['sampling_params', 'max_tokens'], `the prompt has ${n} tokens and max_tokens is ${maxTokens}: ${n + maxTokens} tokens exceed the model's context of ${context}; ask for at most ${Math.max(0, context - n)} new tokens or shorten the prompt`);
      }
      if (body.sampling_params.top_k === 0) refuse(['sampling_params', 'top_k'], 'must be -1 (no limit) or a positive integer, got 0');
    });
}

/** One schema per limits and model shape (a server has few), built on first use. */
const schemas = new WeakMap<TinkerLimits, Map<string, ReturnType<typeof sampleBody>>>();

export function checkSampleRequest(body: Body, model: SampleModelFacts, limits: TinkerLimits): CheckedSampleRequest {
  const byModel = schemas.get(limits) ?? new Map<string, ReturnType<typeof sampleBody>>();
  schemas.set(limits, byModel);
  const key = `${model.vocab}/${model.context}`;
  let schema = byModel.get(key);
  if (!schema) byModel.set(key, (schema = sampleBody(model, limits)));
  const request = parseTinker(schema, body);
  const { prompt, sampling_params: p } = request;
  // The model's own stop tokens end a sample whatever `stop` adds (vLLM's rule, unless ignore_eos).
  const stopIds = [...new Set([...model.stopIds, ...p.stop.ids])];
  return {
    prompt,
    promptLogprobs: request.prompt_logprobs,
    topkPromptLogprobs: request.topk_prompt_logprobs,
    ...(p.seed === undefined ? {} : { seed: p.seed }),
    generate: {
      promptIds: prompt,
      n: request.num_samples,
      maxTokens: Math.min(p.max_tokens, model.context - prompt.length),
      temperature: p.temperature,
      topP: p.top_p,
      topK: p.top_k === -1 ? 0 : p.top_k,
      ...(p.stop.strings.length ? { stop: p.stop.strings } : {}),
      stopIds,
    },
  };
}
