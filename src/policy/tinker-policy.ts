/**
 * A Policy that samples through a Tinker-compatible service (`policy.kind: tinker`): each
 * request (a prompt and its K branches) is ONE `asample` call with `num_samples: K`, and the
 * sampler's per-token logprobs are the behaviour logprobs the learner's ratio uses.
 *
 *   const policy = new TinkerPolicy({ id: 'plan', tokenizer, sampler });
 *   policy.useSampler(await model.saveForSampler());   // after every update: fresh weights
 *
 * Prompts are tokenised here exactly as the embedded policy does (the model folder's chat
 * template for natural-format prompts when it has one, else BOS + text; encode-prompt.ts), so
 * the service sees the ids the learner later trains on, and an embedded run the same ones.
 * Completions end at the folder's stop tokens: sent as `stop` token ids, or, when the request
 * also has stop strings (the API takes one kind per request), cut here at the first stop token,
 * which is where the embedded sampler would have stopped. Requests of one `sample` call go out
 * together.
 */
import type { Tokenizer } from '../engine/tokenizer/types.js';
import type { TinkerSampler } from '../tinker/tinker-client.js';
import type { SampledSequence } from '../tinker/types.js';
import { encodeFormattedPrompt, type PromptFormat } from './encode-prompt.js';
import { samplingSeed } from './sampling-seed.js';
import type { Completion, Policy, SampleRequest } from './types.js';

export interface TinkerPolicyOptions {
  readonly id: string;
  readonly tokenizer: Tokenizer;
  readonly sampler: TinkerSampler;
  /** Chat template and stop tokens of the base model's folder (default: raw text, the tokenizer's eos). */
  readonly prompting?: PromptFormat;
  /**
   * The service's context length for the base model: max_tokens is shortened so prompt plus
   * completion fit (the embedded sampler stops at the context; a Tinker service refuses more).
   */
  readonly contextLength?: number;
}

export class TinkerPolicy implements Policy {
  readonly id: string;
  readonly tokenizer: Tokenizer;
  private sampler: TinkerSampler;
  private readonly prompting: PromptFormat;
  private readonly stopIds: ReadonlySet<number>;
  private readonly contextLength?: number;

  constructor(options: TinkerPolicyOptions) {
    this.contextLength = options.contextLength;
    this.id = options.id;
    this.tokenizer = options.tokenizer;
    this.sampler = options.sampler;
    this.prompting = options.prompting ?? {};
    const eos = options.tokenizer.special.eos;
    this.stopIds = new Set(this.prompting.stopIds ?? (eos === undefined ? [] : [eos]));
  }

  encodePrompt(prompt: string): number[] {
    return encodeFormattedPrompt(this.tokenizer, this.prompting, prompt);
  }

  /**
   * A policy that keeps sampling with the current weights whatever `useSampler` later does to
   * this one: asynchronous training plays a rollout with it while an update replaces the sampler.
   */
  pinned(): TinkerPolicy {
    return new TinkerPolicy({ id: this.id, tokenizer: this.tokenizer, sampler: this.sampler, prompting: this.prompting, ...(this.contextLength === undefined ? {} : { contextLength: this.contextLength }) });
  }

  /** Samples from now on with these weights (a fresh sampler after each optimizer step). */
  useSampler(sampler: TinkerSampler): void {
    this.sampler = sampler;
  }

  async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
    return Promise.all(
      requests.map(async (r) => {
        const promptIds = r.promptIds ? [...r.promptIds] : this.encodePrompt(r.prompt);
        const stopIds = this.prompting.stopIds ?? [];
        const stop = r.stop.length > 0 ? [...r.stop] : stopIds.length > 0 ? [...stopIds] : undefined;
        const response = await this.sampler.sample({
          prompt: { chunks: [{ type: 'encoded_text', tokens: promptIds }] },
          num_samples: r.n,
          sampling_params: { max_tokens: this.contextLength === undefined ? r.maxTokens : Math.max(1, Math.min(r.maxTokens, this.contextLength - promptIds.length)), seed: samplingSeed(r.seed), temperature: r.temperature, top_p: r.topP, top_k: r.topK === 0 ? -1 : r.topK, ...(stop ? { stop } : {}) },
        });
        return response.sequences.map((s) => this.completion(s, promptIds, r.stop));
      }),
    );
  }

  private completion(s: SampledSequence, promptIds: readonly number[], stops: readonly string[]): Completion {
    // The first stop token ends the completion (the service may not have been told of it).
    const stopAt = s.tokens.findIndex((id) => this.stopIds.has(id));
    const kept = stopAt < 0 ? s.tokens.length : stopAt + 1;
    const ids = s.tokens.slice(0, kept);
    const logprobs = (s.logprobs ?? []).slice(0, kept);
    const finishReason = stopAt < 0 ? s.stop_reason : 'stop';
    const textIds = stopAt < 0 ? ids : ids.slice(0, -1);
    let text = this.tokenizer.decode(textIds, { skipSpecial: true });
    // The service stops after a stop string; the text is cut before it (OpenAI semantics).
    const cut = Math.min(...stops.map((stop) => text.indexOf(stop)).filter((at) => at >= 0));
    if (Number.isFinite(cut)) text = text.slice(0, cut);
    return { text, promptIds, ids, logprobs, finishReason };
  }
}
