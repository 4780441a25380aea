/**
 * The JSON bodies the OpenAI-compatible server accepts, as zod schemas: what each field takes
 * and the sentence a client gets when it sends something else (request-body.ts turns the first
 * problem into a 400 naming the field). Fields the engine cannot honour (penalties,
 * logit_bias, tools, ...) take only their neutral values (0, false, null, {}, []), so a request
 * that relies on them is refused rather than silently answered differently; fields that change
 * nothing about sampling (user, metadata, ...) and fields this server does not know pass, as
 * other OpenAI-compatible servers do. What involves two fields (best_of = n, echo with
 * max_tokens 0) is checked by parse-request.ts after these.
 */
import { z } from 'zod';
import { bodyObject, describe, field, wholeField } from './request-body.js';

/** Most completions one request may ask for (n times the number of prompts). */
export const MAX_CHOICES = 256;
/** Most alternatives per token (OpenAI allows 5 for completions, 20 for chat). */
export const MAX_TOP_LOGPROBS = 20;

const UNSUPPORTED_COMPLETIONS = ['suffix', 'logit_bias', 'presence_penalty', 'frequency_penalty'] as const;
const UNSUPPORTED_CHAT = ['echo', 'tools', 'functions', 'tool_choice', 'function_call', 'response_format', 'logit_bias', 'presence_penalty', 'frequency_penalty', 'audio', 'modalities', 'prediction'] as const;

/** A field the engine cannot reproduce: only a neutral value (which asks for nothing) passes. */
const unsupported = wholeField(z.union([z.literal(0), z.literal(false), z.null(), z.strictObject({}), z.array(z.never()).length(0)]).optional(), (value) => `${describe(value)} is not supported by troupe serve; remove the field`);

function refused<const N extends readonly string[]>(names: N): Record<N[number], typeof unsupported> {
  return Object.fromEntries(names.map((name) => [name, unsupported])) as Record<N[number], typeof unsupported>;
}

// null means "not given", as OpenAI's own SDKs send it.
const flag = field(z.boolean(), 'true or false').nullish();
const int = (allowed: string, check: (schema: z.ZodNumber) => z.ZodNumber = (s) => s) => field(check(z.number().int()), allowed).nullish();
const modelName = field(z.string().min(1), 'a model name (see GET /v1/models)');
const tokenIds = z.array(z.number().int()).min(1);

/** A message's content: a string, or text parts (joined); images and audio are refused. */
const content = wholeField(
  z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))]).nullish(),
  () => 'expected a string or a list of {"type": "text", "text": ...} parts (images and audio are not supported)',
).transform((value) => (value === null || value === undefined ? '' : typeof value === 'string' ? value : value.map((part) => part.text).join('')));

const message = field(
  z.looseObject({ role: z.unknown().optional(), content }).refine((m) => typeof m.role === 'string' && m.role.length > 0),
  'an object with a string "role"',
  80,
).transform((m) => ({ role: m.role as string, content: m.content }));

export const messages = field(z.array(message).min(1), 'a non-empty list of {role, content} objects', 80);

/** The fields both endpoints share. */
const common = {
  model: modelName,
  n: int(`an integer from 1 to ${MAX_CHOICES}`, (s) => s.min(1).max(MAX_CHOICES)),
  best_of: int('a positive integer', (s) => s.min(1)),
  top_k: int('an integer >= 0 (or -1 / 0 to disable)', (s) => s.min(-1)),
  temperature: field(z.number().min(0), 'a number >= 0 (0 = greedy)').nullish(),
  top_p: field(z.number().gt(0).max(1), 'a number in (0, 1]').nullish(),
  stop: wholeField(z.union([z.string().min(1), z.array(z.string().min(1))]).nullish(), (value) => `expected a non-empty string or a list of non-empty strings, got ${describe(value)}`),
  seed: int('an integer'),
  stream: flag,
  stream_options: field(z.looseObject({ include_usage: flag }), 'an object like {"include_usage": true}').nullish(),
  return_tokens_as_token_ids: flag,
};

export const completionBody = bodyObject({
  ...refused(UNSUPPORTED_COMPLETIONS),
  ...common,
  max_tokens: int('an integer >= 0 (0 only with echo)', (s) => s.min(0)),
  prompt: wholeField(
    z.union([z.string(), tokenIds, z.array(z.string()).min(1), z.array(tokenIds).min(1)]),
    (value) => `expected a string, a list of strings, a list of token ids, or a list of token-id lists (non-empty), got ${describe(value, 80)}`,
  ),
  logprobs: int(`an integer from 0 to ${MAX_TOP_LOGPROBS}`, (s) => s.min(0).max(MAX_TOP_LOGPROBS)),
  echo: flag,
  add_special_tokens: flag,
});

export const chatBody = bodyObject({
  ...refused(UNSUPPORTED_CHAT),
  ...common,
  max_tokens: int('a positive integer', (s) => s.min(1)),
  max_completion_tokens: int('a positive integer', (s) => s.min(1)),
  messages,
  logprobs: flag,
  top_logprobs: int(`an integer from 0 to ${MAX_TOP_LOGPROBS}`, (s) => s.min(0).max(MAX_TOP_LOGPROBS)),
  add_generation_prompt: flag,
  enable_thinking: flag,
  chat_template_kwargs: field(z.looseObject({ enable_thinking: flag }), 'an object of template variables like {"enable_thinking": false}', 80).nullish(),
});

/** POST /tokenize as vLLM has it: {prompt, add_special_tokens} or {messages, add_generation_prompt}. */
const tokenizeCommon = { model: modelName.nullish(), return_token_strs: flag };

export const tokenizeTextBody = bodyObject({
  ...tokenizeCommon,
  prompt: field(z.string(), 'the text to tokenize (or "messages" for a conversation)', 80),
  add_special_tokens: flag,
});

export const tokenizeChatBody = bodyObject({
  ...tokenizeCommon,
  messages,
  add_generation_prompt: flag,
  chat_template_kwargs: field(z.looseObject({}), 'an object of template variables', 80).nullish(),
});

/** POST /detokenize as vLLM has it: {tokens: [ids]}. */
export const detokenizeBody = bodyObject({
  model: modelName.nullish(),
  tokens: field(z.array(z.number().int()), 'a list of token ids', 80),
});
