/**
 * The JSON body of POST /v1/completions, /v1/chat/completions, /tokenize and /detokenize into
 * the server's request types. The fields are checked by the zod schemas of request-schemas.ts
 * (every problem a 400 naming the field, the value and what is allowed); what involves two
 * fields, and the defaults, are here.
 */
import type { z } from 'zod';
import { badParam } from './api-error.js';
import { parseBody } from './request-body.js';
import { chatBody, completionBody, detokenizeBody, MAX_CHOICES, tokenizeChatBody, tokenizeTextBody } from './request-schemas.js';
import type { DetokenizeRequest, PromptInput, ServeRequest, TokenizeRequest } from './types.js';

export { MAX_CHOICES, MAX_TOP_LOGPROBS } from './request-schemas.js';

/** OpenAI's error codes for the refusals that are not `invalid_value`. */
const CODES: Readonly<Record<string, string>> = {
  model: 'missing_model',
  ...Object.fromEntries(['suffix', 'echo', 'tools', 'functions', 'tool_choice', 'function_call', 'response_format', 'logit_bias', 'presence_penalty', 'frequency_penalty', 'audio', 'modalities', 'prediction'].map((name) => [name, 'unsupported_parameter'])),
};
/** Completions take `echo`; only the chat endpoint refuses it. */
const COMPLETION_CODES: Readonly<Record<string, string>> = { ...CODES, echo: 'invalid_value' };

type CommonFields = Pick<ServeRequest, 'endpoint' | 'model' | 'n' | 'temperature' | 'topP' | 'topK' | 'maxTokens' | 'stop' | 'seed' | 'stream' | 'includeUsage' | 'tokensAsIds'>;

/** The fields both endpoints share, with their defaults. */
function commonFields(body: z.output<typeof completionBody> | z.output<typeof chatBody>, endpoint: 'completions' | 'chat', maxTokens: number | undefined): CommonFields {
  const n = body.n ?? 1;
  if (body.best_of !== null && body.best_of !== undefined && body.best_of !== n) throw badParam('best_of', `only best_of = n is supported (n is ${n}), got ${body.best_of}`, 'unsupported_parameter');
  const stop = body.stop ?? [];
  return {
    endpoint,
    model: body.model,
    n,
    temperature: body.temperature ?? 1,
    topP: body.top_p ?? 1,
    topK: Math.max(0, body.top_k ?? 0),
    maxTokens,
    stop: typeof stop === 'string' ? [stop] : stop,
    seed: body.seed ?? undefined,
    stream: body.stream ?? false,
    includeUsage: body.stream_options?.include_usage ?? false,
    tokensAsIds: body.return_tokens_as_token_ids ?? false,
  };
}

function prompts(prompt: z.output<typeof completionBody>["prompt"]): PromptInput[] {
  if (typeof prompt === 'string') return [{ text: prompt }];
  if (prompt.every((p): p is number => typeof p === 'number')) return [{ ids: prompt }];
  return prompt.map((p) => (typeof p === 'string' ? { text: p } : { ids: p as number[] }));
}

export function parseCompletionRequest(raw: unknown): ServeRequest {
  const body = parseBody(completionBody, raw, COMPLETION_CODES);
  const common = commonFields(body, 'completions', body.max_tokens ?? undefined);
  const inputs = prompts(body.prompt);
  if (inputs.length * common.n > MAX_CHOICES) throw badParam('n', `${inputs.length} prompts x n = ${common.n} asks for more than ${MAX_CHOICES} completions; split the request`);
  const echo = body.echo ?? false;
  if (common.maxTokens === 0 && !echo) throw badParam('max_tokens', '0 generates nothing; it is only allowed with "echo": true (scoring the prompt)');
  if (echo && common.stream) throw badParam('echo', 'echo with "stream": true is not supported; send the request without stream');
  return {
    ...common,
    prompts: inputs,
    messages: [],
    addGenerationPrompt: false,
    chatTemplateKwargs: {},
    enableThinking: undefined,
    logprobs: body.logprobs === null || body.logprobs === undefined ? undefined : { top: body.logprobs },
    echo,
    addSpecialTokens: body.add_special_tokens ?? true,
  };
}

export function parseChatRequest(raw: unknown): ServeRequest {
  const body = parseBody(chatBody, raw, CODES);
  const common = commonFields(body, 'chat', body.max_completion_tokens ?? body.max_tokens ?? undefined);
  const wantLogprobs = body.logprobs ?? false;
  const top = body.top_logprobs ?? undefined;
  if (top !== undefined && top > 0 && !wantLogprobs) throw badParam('top_logprobs', 'needs "logprobs": true');
  const kwargs = body.chat_template_kwargs ?? {};
  return {
    ...common,
    prompts: [],
    messages: body.messages,
    addGenerationPrompt: body.add_generation_prompt ?? true,
    chatTemplateKwargs: kwargs,
    enableThinking: body.enable_thinking ?? kwargs.enable_thinking ?? undefined,
    logprobs: wantLogprobs ? { top: top ?? 0 } : undefined,
    echo: false,
    addSpecialTokens: true,
  };
}

/** POST /tokenize: {prompt, add_special_tokens (default true)} or {messages, add_generation_prompt}. */
export function parseTokenizeRequest(raw: unknown): TokenizeRequest {
  const isChat = typeof raw === 'object' && raw !== null && (raw as { messages?: unknown }).messages !== undefined;
  if (isChat && (raw as { prompt?: unknown }).prompt !== undefined) throw badParam('prompt', 'give either "prompt" or "messages", not both');
  if (isChat) {
    const body = parseBody(tokenizeChatBody, raw, {});
    const common = { model: body.model ?? undefined, returnTokenStrs: body.return_token_strs ?? false };
    return { ...common, messages: body.messages, addGenerationPrompt: body.add_generation_prompt ?? true, chatTemplateKwargs: body.chat_template_kwargs ?? {} };
  }
  const body = parseBody(tokenizeTextBody, raw, {});
  return { model: body.model ?? undefined, returnTokenStrs: body.return_token_strs ?? false, text: body.prompt, addSpecialTokens: body.add_special_tokens ?? true };
}

/** POST /detokenize as vLLM has it: {tokens: [ids]}. */
export function parseDetokenizeRequest(raw: unknown): DetokenizeRequest {
  const body = parseBody(detokenizeBody, raw, {});
  return { model: body.model ?? undefined, ids: body.tokens };
}
