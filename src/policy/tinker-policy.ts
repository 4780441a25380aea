/**
 * A Policy that samples through a Tinker-compatible service (`policy.kind: tinker`): each
 * request (a prompt and its K branches) is ONE `asample` call with `num_samples: K`, and the
 * sampler's per-token logprobs are the behaviour logprobs the learner's ratio uses.
 *
 *   const policy = new TinkerPolicy({ id: 'plan', tokenizer, sampler });
 *   policy.useSampler(await model.saveForSampler());   // after every update: fresh weights
 *
 * Prompts are tokenised here (BOS + text, as the embedded policy does), so the service sees
 * exactly the ids the learner later trains on. Requests of one `sample` call go out together.
 */
import type { Tokenizer } from '../engine/tokenizer/types.js';
import type { TinkerSampler } from '../tinker/tinker-client.js';
import type { SampledSequence } from '../tinker/types.js';
import { encodePromptIds } from './encode-prompt.js';
import type { Completion, Policy, SampleRequest } from './types.js';

export interface TinkerPolicyOptions {
  readonly id: string;
  readonly tokenizer: Tokenizer;
  readonly sampler: TinkerSampler;
}

export class TinkerPolicy implements Policy {
  readonly id: string;
  readonly tokenizer: Tokenizer;
  private sampler: TinkerSampler;

  constructor(options: TinkerPolicyOptions) {
    this.id = options.id;
    this.tokenizer = options.tokenizer;
    this.sampler = options.sampler;
  }

  /** Samples from now on with these weights (a fresh sampler after each optimizer step). */
  useSampler(sampler: TinkerSampler): void {
    this.sampler = sampler;
  }

  async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
    return Promise.all(
      requests.map(async (r) => {
        const promptIds = r.promptIds ? [...r.promptIds] : encodePromptIds(this.tokenizer, r.prompt);
        const response = await this.sampler.sample({
          prompt: { chunks: [{ type: 'encoded_text', tokens: promptIds }] },
          num_samples: r.n,
          sampling_params: { max_tokens: r.maxTokens, seed: r.seed, temperature: r.temperature, top_p: r.topP, top_k: r.topK === 0 ? -1 : r.topK, ...(r.stop.length ? { stop: [...r.stop] } : {}) },
        });
        return response.sequences.map((s) => this.completion(s, promptIds, r.stop));
      }),
    );
  }

  private completion(s: SampledSequence, promptIds: readonly number[], stops: readonly string[]): Completion {
    const eos = this.tokenizer.special.eos;
    const ids = [...s.tokens];
    const textIds = s.stop_reason === 'stop' && eos !== undefined && ids[ids.length - 1] === eos ? ids.slice(0, -1) : ids;
    let text = this.tokenizer.decode(textIds, { skipSpecial: true });
    // The service stops after a stop string; the text is cut before it (OpenAI semantics).
    const cut = Math.min(...stops.map((stop) => text.indexOf(stop)).filter((at) => at >= 0));
    if (Number.isFinite(cut)) text = text.slice(0, cut);
    return { text, promptIds, ids, logprobs: s.logprobs ?? [], finishReason: s.stop_reason };
  }
}
