/**
 * Validates the JSON body of POST /v1/completions and /v1/chat/completions into a
 * ServeRequest. Every problem is a 400 naming the field, the value and what is allowed.
 * Fields the engine cannot honour (penalties, logit_bias, tools, ...) are refused rather
 * than silently ignored; fields that change nothing about sampling (user, metadata, ...) and
 * fields this server does not know are ignored, as other OpenAI-compatible servers do.
 */
import { ApiError, badParam } from './api-error.js';
import type { ChatMessage, DetokenizeRequest, PromptInput, ServeRequest, TokenizeRequest } from './types.js';

type Body = Record<string, unknown>;

/** Most completions one request may ask for (n times the number of prompts). */
export const MAX_CHOICES = 256;
/** Most alternatives per token (OpenAI allows 5 for completions, 20 for chat). */
export const MAX_TOP_LOGPROBS = 20;

const UNSUPPORTED_COMPLETIONS = ['suffix', 'logit_bias', 'presence_penalty', 'frequency_penalty'];
const UNSUPPORTED_CHAT = ['echo', 'tools', 'functions', 'tool_choice', 'function_call', 'response_format', 'logit_bias', 'presence_penalty', 'frequency_penalty', 'audio', 'modalities', 'prediction'];

function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTokenList(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((x) => Number.isInteger(x));
}

/** Refuses fields whose effect the engine cannot reproduce; neutral values (0, false, {}) pass. */
function refuseUnsupported(body: Body, names: readonly string[]): void {
  for (const name of names) {
    const value = body[name];
    const neutral = value === undefined || value === null || value === 0 || value === false || (isObject(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0);
    if (!neutral) throw badParam(name, `${describe(value)} is not supported by troupe serve; remove the field`, 'unsupported_parameter');
  }
}

function optionalNumber(body: Body, name: string, fallback: number, check: (x: number) => boolean, allowed: string): number {
  const value = body[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || !check(value)) throw badParam(name, `expected ${allowed}, got ${describe(value)}`);
  return value;
}

function optionalInt(body: Body, name: string, check: (x: number) => boolean, allowed: string): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || !check(value)) throw badParam(name, `expected ${allowed}, got ${describe(value)}`);
  return value;
}

function optionalBool(body: Body, name: string, fallback: boolean): boolean {
  const value = body[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw badParam(name, `expected true or false, got ${describe(value)}`);
  return value;
}

function parseStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string' && s.length > 0)) {
    throw badParam('stop', `expected a non-empty string or a list of non-empty strings, got ${describe(value)}`);
  }
  return list as string[];
}

function parsePrompts(value: unknown): PromptInput[] {
  const allowed = 'a string, a list of strings, a list of token ids, or a list of token-id lists';
  if (typeof value === 'string') return [{ text: value }];
  if (isTokenList(value)) return [{ ids: value }];
  if (Array.isArray(value) && value.length > 0) {
    if (value.every((p) => typeof p === 'string')) return (value as string[]).map((text) => ({ text }));
    if (value.every((p) => isTokenList(p))) return (value as number[][]).map((ids) => ({ ids }));
  }
  throw badParam('prompt', `expected ${allowed} (non-empty), got ${describe(value)?.slice(0, 80)}`);
}

function messageContent(content: unknown, index: number): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content) && content.every((part) => isObject(part) && part.type === 'text' && typeof part.text === 'string')) {
    return content.map((part) => (part as { text: string }).text).join('');
  }
  throw badParam(`messages[${index}].content`, 'expected a string or a list of {"type": "text", "text": ...} parts (images and audio are not supported)');
}

function parseMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw badParam('messages', `expected a non-empty list of {role, content} objects, got ${describe(value)?.slice(0, 80)}`);
  return value.map((m, i) => {
    if (!isObject(m) || typeof m.role !== 'string' || m.role.length === 0) throw badParam(`messages[${i}]`, `expected an object with a string "role", got ${describe(m)?.slice(0, 80)}`);
    return { role: m.role, content: messageContent(m.content, i) };
  });
}

/** The fields both endpoints share. */
function parseCommon(body: Body, endpoint: 'completions' | 'chat'): Omit<ServeRequest, 'prompts' | 'messages' | 'addGenerationPrompt' | 'chatTemplateKwargs' | 'enableThinking' | 'logprobs' | 'echo' | 'addSpecialTokens'> {
  if (typeof body.model !== 'string' || body.model.length === 0) throw badParam('model', `expected a model name (see GET /v1/models), got ${describe(body.model)}`, 'missing_model');
  const n = optionalInt(body, 'n', (x) => x >= 1 && x <= MAX_CHOICES, `an integer from 1 to ${MAX_CHOICES}`) ?? 1;
  const bestOf = optionalInt(body, 'best_of', (x) => x >= 1, 'a positive integer');
  if (bestOf !== undefined && bestOf !== n) throw badParam('best_of', `only best_of = n is supported (n is ${n}), got ${bestOf}`, 'unsupported_parameter');
  const topK = optionalInt(body, 'top_k', (x) => x >= -1, 'an integer >= 0 (or -1 / 0 to disable)') ?? 0;
  const maxName = endpoint === 'chat' && body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions)) throw badParam('stream_options', `expected an object like {"include_usage": true}, got ${describe(streamOptions)}`);
  const includeUsage = isObject(streamOptions) ? optionalBool(streamOptions, 'include_usage', false) : false;
  return {
    endpoint,
    model: body.model,
    n,
    temperature: optionalNumber(body, 'temperature', 1, (x) => x >= 0, 'a number >= 0 (0 = greedy)'),
    topP: optionalNumber(body, 'top_p', 1, (x) => x > 0 && x <= 1, 'a number in (0, 1]'),
    topK: Math.max(0, topK),
    maxTokens: optionalInt(body, maxName, (x) => x >= (endpoint === 'completions' ? 0 : 1), endpoint === 'completions' ? 'an integer >= 0 (0 only with echo)' : 'a positive integer'),
    stop: parseStop(body.stop),
    seed: optionalInt(body, 'seed', () => true, 'an integer'),
    stream: optionalBool(body, 'stream', false),
    includeUsage,
    tokensAsIds: optionalBool(body, 'return_tokens_as_token_ids', false),
  };
}

export function parseCompletionRequest(body: unknown): ServeRequest {
  if (!isObject(body)) throw new ApiError(400, `the request body must be a JSON object, got ${describe(body)?.slice(0, 40)}`);
  refuseUnsupported(body, UNSUPPORTED_COMPLETIONS);
  const common = parseCommon(body, 'completions');
  const prompts = parsePrompts(body.prompt);
  if (prompts.length * common.n > MAX_CHOICES) throw badParam('n', `${prompts.length} prompts x n = ${common.n} asks for more than ${MAX_CHOICES} completions; split the request`);
  const logprobs = optionalInt(body, 'logprobs', (x) => x >= 0 && x <= MAX_TOP_LOGPROBS, `an integer from 0 to ${MAX_TOP_LOGPROBS}`);
  const echo = optionalBool(body, 'echo', false);
  if (common.maxTokens === 0 && !echo) throw badParam('max_tokens', '0 generates nothing; it is only allowed with "echo": true (scoring the prompt)');
  if (echo && common.stream) throw badParam('echo', 'echo with "stream": true is not supported; send the request without stream');
  return {
    ...common,
    prompts,
    messages: [],
    addGenerationPrompt: false,
    chatTemplateKwargs: {},
    enableThinking: undefined,
    logprobs: logprobs === undefined ? undefined : { top: logprobs },
    echo,
    addSpecialTokens: optionalBool(body, 'add_special_tokens', true),
  };
}

export function parseChatRequest(body: unknown): ServeRequest {
  if (!isObject(body)) throw new ApiError(400, `the request body must be a JSON object, got ${describe(body)?.slice(0, 40)}`);
  refuseUnsupported(body, UNSUPPORTED_CHAT);
  const common = parseCommon(body, 'chat');
  const messages = parseMessages(body.messages);
  const wantLogprobs = optionalBool(body, 'logprobs', false);
  const top = optionalInt(body, 'top_logprobs', (x) => x >= 0 && x <= MAX_TOP_LOGPROBS, `an integer from 0 to ${MAX_TOP_LOGPROBS}`);
  if (top !== undefined && top > 0 && !wantLogprobs) throw badParam('top_logprobs', 'needs "logprobs": true');
  const kwargs = body.chat_template_kwargs ?? {};
  if (!isObject(kwargs)) throw badParam('chat_template_kwargs', `expected an object of template variables like {"enable_thinking": false}, got ${describe(kwargs)?.slice(0, 80)}`);
  const thinking = body.enable_thinking ?? kwargs.enable_thinking;
  if (thinking !== undefined && typeof thinking !== 'boolean') throw badParam('enable_thinking', `expected true or false, got ${describe(thinking)}`);
  return {
    ...common,
    prompts: [],
    messages,
    addGenerationPrompt: optionalBool(body, 'add_generation_prompt', true),
    chatTemplateKwargs: kwargs,
    enableThinking: thinking,
    logprobs: wantLogprobs ? { top: top ?? 0 } : undefined,
    echo: false,
    addSpecialTokens: true,
  };
}

function optionalModel(body: Body): string | undefined {
  if (body.model === undefined || body.model === null) return undefined;
  if (typeof body.model !== 'string' || body.model.length === 0) throw badParam('model', `expected a model name (see GET /v1/models), got ${describe(body.model)}`);
  return body.model;
}

/** POST /tokenize as vLLM has it: {prompt, add_special_tokens (default true)} or {messages, add_generation_prompt}. */
export function parseTokenizeRequest(body: unknown): TokenizeRequest {
  if (!isObject(body)) throw new ApiError(400, `the request body must be a JSON object, got ${describe(body)?.slice(0, 40)}`);
  const model = optionalModel(body);
  const returnTokenStrs = optionalBool(body, 'return_token_strs', false);
  if (body.messages !== undefined) {
    if (body.prompt !== undefined) throw badParam('prompt', 'give either "prompt" or "messages", not both');
    const kwargs = body.chat_template_kwargs ?? {};
    if (!isObject(kwargs)) throw badParam('chat_template_kwargs', `expected an object of template variables, got ${describe(kwargs)?.slice(0, 80)}`);
    return { model, returnTokenStrs, messages: parseMessages(body.messages), addGenerationPrompt: optionalBool(body, 'add_generation_prompt', true), chatTemplateKwargs: kwargs };
  }
  if (typeof body.prompt !== 'string') throw badParam('prompt', `expected the text to tokenize (or "messages" for a conversation), got ${describe(body.prompt)?.slice(0, 80)}`);
  return { model, returnTokenStrs, text: body.prompt, addSpecialTokens: optionalBool(body, 'add_special_tokens', true) };
}

/** POST /detokenize as vLLM has it: {tokens: [ids]}. */
export function parseDetokenizeRequest(body: unknown): DetokenizeRequest {
  if (!isObject(body)) throw new ApiError(400, `the request body must be a JSON object, got ${describe(body)?.slice(0, 40)}`);
  const tokens = body.tokens;
  if (!Array.isArray(tokens) || !tokens.every((x) => Number.isSafeInteger(x))) throw badParam('tokens', `expected a list of token ids, got ${describe(tokens)?.slice(0, 80)}`);
  return { model: optionalModel(body), ids: tokens as number[] };
}
