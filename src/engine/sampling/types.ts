/**
 * What the embedded engine's sampler takes and returns (see generate.ts). Token-in,
 * token-out: prompts arrive as ids and completions leave as ids with their logprobs; text is
 * decoded only for stop strings and for the roles that parse it.
 */

/** One prompt to continue `n` times (the K branches of a tree node share one request). */
export interface GenerateRequest {
  readonly promptIds: readonly number[];
  /** Continuations of this prompt; the prompt is prefilled once for all of them. */
  readonly n: number;
  /** Continuation i draws from Rng.derive(seed, i): same seed, same tokens. */
  readonly seed: number;
  /** Most tokens to generate per continuation (the model's context also limits it). */
  readonly maxTokens: number;
  /** 0 = greedy. Default 1. */
  readonly temperature?: number;
  /** Nucleus sampling threshold; 1 (default) disables. */
  readonly topP?: number;
  /** Keep the k most likely tokens; 0 (default) disables. */
  readonly topK?: number;
  /**
   * Generation stops when the decoded text contains one of these; the text is cut before it
   * (OpenAI / vLLM semantics) while `ids` keep every generated token, stop tokens included.
   */
  readonly stop?: readonly string[];
  /** Token ids that end a continuation (kept in `ids`, not in `text`). Default: the tokenizer's EOS. */
  readonly stopIds?: readonly number[];
  /** LoRA adapter of the model to sample with (LlamaModel.adapters); base model when absent. */
  readonly adapter?: string;
}

export type GenerationFinish = 'stop' | 'length' | 'error';

export interface Generation {
  /** Generated token ids (stop ids and the tokens of a stop string included). */
  readonly ids: number[];
  /**
   * Logprob of each generated token under the model's untruncated distribution at the score
   * temperature (default 1): equal, to float rounding, to what LlamaModel.tokenLogprobs
   * computes for the same weights. See sample-token.ts.
   */
  readonly logprobs: number[];
  /** Logprob of each token under the truncated, tempered distribution it was drawn from. */
  readonly samplingLogprobs: number[];
  /** Decoded text without special tokens, cut before a matched stop string. */
  readonly text: string;
  readonly finishReason: GenerationFinish;
  /** The stop string that ended the continuation, when one did. */
  readonly stopString?: string;
  /** Why the request could not be served (finishReason 'error'). */
  readonly error?: string;
}

/** One token, reported by `GenerateOptions.onToken` the moment it is drawn. */
export interface TokenEvent {
  /** Index of the request in the generate call, and of the continuation within it (0..n-1). */
  readonly request: number;
  readonly index: number;
  readonly id: number;
  /** As in Generation.logprobs: untruncated, at the score temperature. */
  readonly logprob: number;
  /**
   * The raw logits (vocab_size) the token was drawn from. A view into scratch memory that the
   * next decode step overwrites: read it inside the callback, copy what you keep.
   */
  readonly logits: Float32Array;
  /** Present on the continuation's last token: the finished Generation, text cut as returned. */
  readonly generation?: Generation;
}

export interface GenerateOptions {
  /** Temperature of the recorded `logprobs`; default 1 (what the learner uses). */
  readonly scoreTemperature?: number;
  /** Most continuations decoded together in one step (bounds memory); default 64. */
  readonly maxBatch?: number;
  /**
   * Called for every sampled token, in a fixed order (continuations in batch order within a
   * step); it sees the tokens, it cannot change them. `Sampler.generateLive` returns to the
   * event loop between decode steps so the caller can send each token as it comes.
   */
  readonly onToken?: (event: TokenEvent) => void;
}
