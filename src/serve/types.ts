/**
 * The serve layer's vocabulary. Read this first.
 *
 * `troupe serve` answers the OpenAI HTTP API (GET /v1/models, POST /v1/completions,
 * POST /v1/chat/completions) from embedded models. A request goes through four steps:
 *
 *   1. parse-request.ts   the JSON body -> a `ServeRequest` (or a 400 ApiError naming the field)
 *   2. server.ts          the model name -> a `ServedModel` (404 lists the available names);
 *                         prompts -> token ids (chat: through the chat template)
 *   3. batcher.ts         every prompt of every request that arrives within a few ms (or while
 *                         a batch runs) goes to ONE sampler call (generateLive when a request
 *                         streams: the event loop runs between decode steps)
 *   4. format-response.ts Generations -> the OpenAI response JSON; stream-response.ts sends
 *                         SSE chunks token by token as the batch draws them
 *
 * Extra response fields (like vLLM's `return_token_ids`): `prompt_token_ids` (on the response
 * when it has one prompt, and on every choice) and `token_ids` per choice: the exact ids the
 * model read and wrote, so a client can train on them without re-tokenising.
 *
 * Evaluation harnesses (lm-eval's local-completions) also use: `echo` with `logprobs` (the
 * prompt's own log-probs, echo-prompt.ts), `max_tokens: 0` with echo (scoring only), and
 * vLLM's tokenizer routes POST /tokenize, POST /detokenize and GET /tokenizer_info
 * (tokenizer-routes.ts).
 */
import type { LlamaModel } from '../engine/model/llama-model.js';
import type { ChatMessage, ChatTemplate } from '../engine/tokenizer/chat-template.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';

export type { ChatMessage } from '../engine/tokenizer/chat-template.js';

/** One name the server answers to: the base model or one of its LoRA adapters. */
export interface ServedModel {
  /** `base` or `base:role`. */
  readonly name: string;
  readonly model: LlamaModel;
  readonly tokenizer: Tokenizer;
  readonly chatTemplate: ChatTemplate;
  /** Token ids that end a generation: generation_config.json's eos_token_id(s) and the tokenizer's eos. */
  readonly stopIds: readonly number[];
  /** LoRA adapter of `model` (LlamaModel.adapters key); undefined for the base. */
  readonly adapter?: string;
  /** Served name of the base model an adapter applies to. */
  readonly parent?: string;
  /** Where the weights came from (shown in /v1/models as `root`). */
  readonly root: string;
}

/** A prompt as given: text (encoded with BOS unless `add_special_tokens` is false, like the embedded policy does) or token ids (used as given). */
export type PromptInput = { readonly text: string } | { readonly ids: readonly number[] };

/** A validated request, either endpoint. Defaults are filled where they do not depend on the model. */
export interface ServeRequest {
  readonly endpoint: 'completions' | 'chat';
  readonly model: string;
  /** completions: one or more prompts. */
  readonly prompts: readonly PromptInput[];
  /** chat: the conversation. */
  readonly messages: readonly ChatMessage[];
  /** chat: append the assistant header (default true). */
  readonly addGenerationPrompt: boolean;
  /** chat: more chat template variables (vLLM's `chat_template_kwargs`); {} for completions. */
  readonly chatTemplateKwargs: Readonly<Record<string, unknown>>;
  /** chat: Qwen3's thinking switch (`enable_thinking`, top level or in chat_template_kwargs); undefined = the template's default. */
  readonly enableThinking: boolean | undefined;
  readonly n: number;
  readonly temperature: number;
  readonly topP: number;
  /** 0 disables (vLLM's -1 is mapped to 0). */
  readonly topK: number;
  /** undefined: completions 16 (OpenAI's default), chat: the rest of the context. */
  readonly maxTokens: number | undefined;
  readonly stop: readonly string[];
  /** undefined: the server draws one from its own seeded stream. */
  readonly seed: number | undefined;
  /** Token logprobs wanted, with this many alternatives each (0 = the chosen token only). */
  readonly logprobs: { readonly top: number } | undefined;
  readonly stream: boolean;
  /** stream_options.include_usage: a last chunk with token counts. */
  readonly includeUsage: boolean;
  /** vLLM's return_tokens_as_token_ids: logprob tokens are written `token_id:N`. */
  readonly tokensAsIds: boolean;
  /**
   * completions: the prompt is returned before the completion, in `text` and, with
   * `logprobs`, with a logprob for every prompt token but the first (null): how evaluation
   * harnesses score a text. `max_tokens: 0` then scores without generating.
   */
  readonly echo: boolean;
  /** completions (vLLM's `add_special_tokens`, default true): a text prompt gets the tokenizer's BOS. Token-id prompts are used as given. */
  readonly addSpecialTokens: boolean;
}

/** POST /tokenize (vLLM's shape): a text, or a conversation through the chat template. `model` absent: the first served model. */
export type TokenizeRequest = { readonly model: string | undefined; readonly returnTokenStrs: boolean } & (
  | { readonly text: string; readonly addSpecialTokens: boolean }
  | { readonly messages: readonly ChatMessage[]; readonly addGenerationPrompt: boolean; readonly chatTemplateKwargs: Readonly<Record<string, unknown>> }
);

/** POST /detokenize (vLLM's shape). */
export interface DetokenizeRequest {
  readonly model: string | undefined;
  readonly ids: readonly number[];
}
