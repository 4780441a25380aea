/**
 * Generations -> OpenAI response bodies, for both endpoints (stream-response.ts sends the
 * same fields as SSE chunks, token by token).
 *
 * Logprob entries cover EVERY generated token, the end-of-sequence token and the tokens of a
 * matched stop string included, so that `token_ids`, `tokens` and `token_logprobs` line up
 * one to one (what a trainer needs); the text is cut before the stop as OpenAI specifies.
 */
import type { Generation } from '../engine/sampling/types.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { textPiecesOf, type EchoedPrompt } from './echo-prompt.js';
import type { TokenAlternative } from './top-logprobs.js';
import type { ServeRequest } from './types.js';

export interface ChoiceResult {
  /** Position in the response: prompt index * n + completion index. */
  readonly index: number;
  readonly promptIds: readonly number[];
  readonly generation: Generation;
  /** Alternatives per token, when logprobs were asked for. */
  readonly top?: readonly (readonly TokenAlternative[])[];
  /** The prompt, echoed before the completion (completions with `echo`). */
  readonly echo?: EchoedPrompt;
}

export interface FormatContext {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly tokenizer: Tokenizer;
  readonly request: ServeRequest;
}

export type Json = Record<string, unknown>;

export function tokenText(ctx: FormatContext, id: number): string {
  return ctx.request.tokensAsIds ? `token_id:${id}` : ctx.tokenizer.decode([id]);
}

/** The text each token adds to the choice's text; the pieces concatenate to exactly `g.text`. */
export function textPieces(tokenizer: Tokenizer, g: Generation): string[] {
  return textPiecesOf(tokenizer, g.ids, g.text, true);
}

/** Token counts; each prompt is counted once however many completions it has (OpenAI's rule). */
export function usage(choices: readonly ChoiceResult[], n: number): Json {
  const prompts = new Map<number, number>();
  for (const c of choices) prompts.set(Math.floor(c.index / n), c.promptIds.length);
  const promptTokens = [...prompts.values()].reduce((a, b) => a + b, 0);
  const completionTokens = choices.reduce((a, c) => a + c.generation.ids.length, 0);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

export function finishReasonOf(g: Generation): string {
  return g.finishReason === 'length' ? 'length' : 'stop';
}

export function stopReason(g: Generation): string | number | null {
  if (g.stopString !== undefined) return g.stopString;
  return g.finishReason === 'stop' ? (g.ids[g.ids.length - 1] ?? null) : null;
}

function extras(c: ChoiceResult): Json {
  return { stop_reason: stopReason(c.generation), token_ids: c.generation.ids, prompt_token_ids: c.promptIds };
}

function alternatives(ctx: FormatContext, alts: readonly TokenAlternative[] | null): Json | null {
  return alts === null ? null : Object.fromEntries(alts.map((a) => [tokenText(ctx, a.id), a.logprob]));
}

/** Start of each piece in the text the pieces make, counted from `base`. */
function offsets(pieces: readonly string[], base: number): number[] {
  let at = base;
  return pieces.map((p) => {
    const start = at;
    at += p.length;
    return start;
  });
}

/** Completions `logprobs` object of a whole choice: the echoed prompt's tokens (if any), then the generated ones. */
function completionLogprobs(ctx: FormatContext, c: ChoiceResult): Json {
  const g = c.generation;
  const withTop = ctx.request.logprobs!.top > 0;
  const echo = c.echo;
  const promptText = echo?.pieces.join('') ?? '';
  return {
    tokens: [...(echo ? c.promptIds : []), ...g.ids].map((id) => tokenText(ctx, id)),
    token_logprobs: [...(echo?.logprobs ?? []), ...g.logprobs],
    top_logprobs: withTop ? [...(echo?.top ?? []), ...c.top!].map((alts) => alternatives(ctx, alts)) : null,
    text_offset: [...(echo ? offsets(echo.pieces, 0) : []), ...offsets(textPieces(ctx.tokenizer, g), promptText.length)],
  };
}

export function chatLogprobEntry(ctx: FormatContext, id: number, logprob: number): Json {
  const token = tokenText(ctx, id);
  return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
}

function chatLogprobs(ctx: FormatContext, c: ChoiceResult, from: number, to: number): Json {
  const g = c.generation;
  const content = [];
  for (let i = from; i < to; i++) {
    content.push({ ...chatLogprobEntry(ctx, g.ids[i]!, g.logprobs[i]!), top_logprobs: (c.top?.[i] ?? []).map((a) => chatLogprobEntry(ctx, a.id, a.logprob)) });
  }
  return { content };
}

export function header(ctx: FormatContext, object: string): Json {
  return { id: ctx.id, object, created: ctx.created, model: ctx.model };
}

function responsePromptIds(choices: readonly ChoiceResult[]): Json {
  const first = choices[0]?.promptIds;
  const single = first !== undefined && choices.every((c) => c.promptIds === first);
  return single ? { prompt_token_ids: first } : {};
}

export function completionBody(ctx: FormatContext, choices: readonly ChoiceResult[]): Json {
  return {
    ...header(ctx, 'text_completion'),
    choices: choices.map((c) => ({
      index: c.index,
      text: (c.echo?.pieces.join('') ?? '') + c.generation.text,
      logprobs: ctx.request.logprobs ? completionLogprobs(ctx, c) : null,
      finish_reason: finishReasonOf(c.generation),
      ...extras(c),
    })),
    usage: usage(choices, ctx.request.n),
    ...responsePromptIds(choices),
  };
}

export function chatBody(ctx: FormatContext, choices: readonly ChoiceResult[]): Json {
  return {
    ...header(ctx, 'chat.completion'),
    choices: choices.map((c) => ({
      index: c.index,
      message: { role: 'assistant', content: c.generation.text },
      logprobs: ctx.request.logprobs ? chatLogprobs(ctx, c, 0, c.generation.ids.length) : null,
      finish_reason: finishReasonOf(c.generation),
      ...extras(c),
    })),
    usage: usage(choices, ctx.request.n),
    ...responsePromptIds(choices),
  };
}
