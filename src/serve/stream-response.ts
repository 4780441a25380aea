/**
 * A streamed response (`stream: true`) as Server-Sent Events, written token by token while
 * the batch is still decoding (the batcher calls `token` for each token as it is drawn):
 *
 *   const sink = new SseSink();
 *   const sse = new SseStream(ctx, sink, prompts);
 *   const generations = await batcher.submit(requests, (t) => sse.token(t));
 *   sse.end(choices);   // meanwhile: new Response(sink.body, { headers: SSE_HEADERS }) once sink.opened
 *
 * Per choice: (chat) a first chunk with the assistant role and the prompt ids, then one chunk
 * per generated token with its `token_ids`, the text it releases (live-text.ts) and, when
 * asked, its logprobs; then a closing chunk with finish_reason and stop_reason. Choices of a
 * request interleave as they decode. At the end: the usage chunk when
 * stream_options.include_usage, then `data: [DONE]`. The response starts with the first chunk
 * (`sink.opened`), so a request that fails before any token still gets a JSON error.
 */
import type { TokenEvent } from '../engine/sampling/types.js';
import { chatLogprobEntry, finishReasonOf, header, stopReason, tokenText, usage, type ChoiceResult, type FormatContext, type Json } from './format-response.js';
import { LiveText } from './live-text.js';
import { topOfLogits, type TokenAlternative } from './top-logprobs.js';

export class SseStream {
  private readonly chat: boolean;
  private readonly object: string;
  /** Live text of each choice that has started, by choice index. */
  private readonly texts = new Map<number, LiveText>();

  constructor(
    private readonly ctx: FormatContext,
    private readonly sink: SseSink,
    private readonly prompts: readonly (readonly number[])[],
  ) {
    this.chat = ctx.request.endpoint === 'chat';
    this.object = this.chat ? 'chat.completion.chunk' : 'text_completion';
  }

  /** Sends one drawn token (and, on a choice's last token, its closing chunk). */
  token(t: TokenEvent): void {
    const index = t.request * this.ctx.request.n + t.index;
    let text = this.texts.get(index);
    if (text === undefined) {
      text = new LiveText(this.ctx.tokenizer, this.ctx.request.stop);
      this.texts.set(index, text);
      if (this.chat) this.send(this.chunk({ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null, prompt_token_ids: this.prompts[t.request] }));
    }
    const offset = text.offset;
    // The last token releases the rest of the final text: a matched stop string is cut there.
    const piece = t.generation ? text.finish(t.generation.text) : text.push(t.id);
    const logprobs = this.ctx.request.logprobs ? this.logprobs(t, offset) : null;
    const base = { index, logprobs, finish_reason: null, token_ids: [t.id] };
    this.send(this.chunk(this.chat ? { ...base, delta: { content: piece } } : { ...base, text: piece }));
    if (t.generation === undefined) return;
    const g = t.generation;
    const last = { index, logprobs: null, finish_reason: finishReasonOf(g), stop_reason: stopReason(g), token_ids: [] as number[] };
    this.send(this.chunk(this.chat ? { ...last, delta: {} } : { ...last, text: '', prompt_token_ids: this.prompts[t.request] }));
  }

  /** After the batch: the usage chunk if asked for, then `[DONE]`. */
  end(choices: readonly ChoiceResult[]): void {
    if (this.ctx.request.includeUsage) this.send({ ...header(this.ctx, this.object), choices: [], usage: usage(choices, this.ctx.request.n) });
    this.sink.end('data: [DONE]\n\n');
  }

  private chunk(choice: Json): Json {
    return { ...header(this.ctx, this.object), choices: [choice], ...(this.ctx.request.includeUsage ? { usage: null } : {}) };
  }

  /** The token's logprobs in the endpoint's shape; alternatives from the logits it was drawn from. */
  private logprobs(t: TokenEvent, offset: number): Json {
    const k = this.ctx.request.logprobs!.top;
    const top: TokenAlternative[] = k > 0 ? topOfLogits(t.logits, k) : [];
    if (this.chat) {
      return { content: [{ ...chatLogprobEntry(this.ctx, t.id, t.logprob), top_logprobs: top.map((a) => chatLogprobEntry(this.ctx, a.id, a.logprob)) }] };
    }
    return {
      tokens: [tokenText(this.ctx, t.id)],
      token_logprobs: [t.logprob],
      top_logprobs: k > 0 ? [Object.fromEntries(top.map((a) => [tokenText(this.ctx, a.id), a.logprob]))] : null,
      text_offset: [offset],
    };
  }

  private send(payload: Json): void {
    this.sink.write(`data: ${JSON.stringify(payload)}\n\n`);
  }
}

export const SSE_HEADERS: Record<string, string> = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' };

/**
 * The body of a streamed response: text written to it is queued for the client, `opened`
 * resolves at the first write (when the response should be handed out), `fail` cuts the
 * stream. A client that went away (the stream cancelled) does not stop the batch; its
 * remaining chunks are dropped.
 */
export class SseSink {
  readonly body: ReadableStream<Uint8Array>;
  readonly opened: Promise<void>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Cancelled by the client, closed or failed: nothing more is queued. */
  private finished = false;
  private markOpened!: () => void;
  private readonly encoder = new TextEncoder();

  constructor() {
    this.opened = new Promise<void>((resolve) => (this.markOpened = resolve));
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.finished = true;
      },
    });
  }

  write(text: string): void {
    this.markOpened();
    if (!this.finished) this.controller.enqueue(this.encoder.encode(text));
  }

  end(text: string): void {
    this.write(text);
    if (!this.finished) this.controller.close();
    this.finished = true;
  }

  fail(error: unknown): void {
    if (!this.finished) this.controller.error(error);
    this.finished = true;
  }
}
