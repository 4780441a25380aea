/**
 * The policy-side vocabulary. A Policy samples completions for prompts; it
 * never sees envs or roles. Implementations: `scripted` (no model, for tests), `embedded`
 * (Troupe's own engine, trainable), `openai` (any OpenAI-compatible server, sampling only),
 * `reference` (a dataset's own solutions).
 */

/** One prompt to complete `n` times. */
export interface SampleRequest {
  readonly prompt: string;
  /** Token ids of `prompt`, when the caller already has them (token-in, no re-tokenising). */
  readonly promptIds?: readonly number[];
  /** Number of completions (the K branches of a tree node share this one request). */
  readonly n: number;
  /**
   * Seed for this request; completion i uses a stream derived from (seed, i). Any uint32; the
   * embedded and Tinker policies sample with its low 30 bits (sampling-seed.ts).
   */
  readonly seed: number;
  readonly temperature: number;
  readonly topP: number;
  /** 0 disables top-k. */
  readonly topK: number;
  readonly maxTokens: number;
  readonly stop: readonly string[];
}

export type FinishReason = 'stop' | 'length' | 'error';

/** One sampled completion. A failed generation is `finishReason: 'error'` with `error` set. */
export interface Completion {
  readonly text: string;
  /** Token ids of the prompt as the policy saw them (when it has a tokenizer). */
  readonly promptIds?: readonly number[];
  /** Token ids of the completion (when it has a tokenizer). */
  readonly ids?: readonly number[];
  /** Log-probability of each completion token under the sampling distribution. */
  readonly logprobs?: readonly number[];
  readonly finishReason: FinishReason;
  readonly error?: string;
}

export interface Policy {
  /** Stable id used in samples and by the router that sends each policy its own samples. */
  readonly id: string;
  /**
   * Samples `n` completions for each request. Returns one array of exactly `n` completions per
   * request, in request order. A single failed generation is returned as an error completion;
   * the promise rejects only when the policy cannot work at all.
   */
  sample(requests: readonly SampleRequest[]): Promise<Completion[][]>;
}
