/**
 * A Policy backed by Troupe's embedded engine: token-in/token-out sampling from a LlamaModel
 * (optionally through one of its LoRA adapters). The sampler reads the model's weights live,
 * so after a learner's optimizer step the very next `sample` call uses the new weights; the
 * learner verifies this on every update by comparing recorded and recomputed logprobs.
 *
 *   const policy = new EmbeddedPolicy({ id: 'shared', model, tokenizer });
 *   const [[completion]] = await policy.sample([{ prompt: 'PLAN 1/4 ...\nA:', n: 1, ... }]);
 */
import type { LlamaModel } from '../engine/model/llama-model.js';
import { Sampler } from '../engine/sampling/generate.js';
import type { Generation } from '../engine/sampling/types.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { encodeFormattedPrompt, type PromptFormat } from './encode-prompt.js';
import { samplingSeed } from './sampling-seed.js';
import type { Completion, Policy, SampleRequest } from './types.js';

export type { PromptFormat } from './encode-prompt.js';

export interface EmbeddedPolicyOptions {
  readonly id: string;
  readonly model: LlamaModel;
  readonly tokenizer: Tokenizer;
  /** LoRA adapter of `model` this policy samples with; the base model when absent. */
  readonly adapter?: string;
  /** Most continuations decoded together (bounds memory). */
  readonly maxBatch?: number;
  /** How prompts reach the model and where completions end (default: raw text, the tokenizer's eos). */
  readonly prompting?: PromptFormat;
  /** Ids never sampled (logit-mask.ts), e.g. idsWithoutToken(tokenizer, vocab); its learner must mask the same. */
  readonly logitMask?: ArrayLike<number>;
}

export class EmbeddedPolicy implements Policy {
  readonly id: string;
  readonly model: LlamaModel;
  readonly tokenizer: Tokenizer;
  readonly adapter: string | undefined;
  readonly maxBatch: number;
  readonly prompting: PromptFormat;
  private readonly sampler: Sampler;

  constructor(options: EmbeddedPolicyOptions) {
    this.id = options.id;
    this.model = options.model;
    this.tokenizer = options.tokenizer;
    this.adapter = options.adapter;
    this.maxBatch = options.maxBatch ?? 64;
    this.prompting = options.prompting ?? {};
    this.sampler = new Sampler(options.model, options.tokenizer, { logitMask: options.logitMask });
  }

  /** The ids this policy never samples (validated; empty when none). */
  get logitMask(): Int32Array {
    return this.sampler.logitMask;
  }

  /** Prompt ids as the model sees them: through the chat template, else BOS (when the tokenizer has one) + the prompt text. */
  encodePrompt(prompt: string): number[] {
    return encodeFormattedPrompt(this.tokenizer, this.prompting, prompt);
  }

  async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
    const promptIds = requests.map((r) => (r.promptIds ? [...r.promptIds] : this.encodePrompt(r.prompt)));
    const generations = this.sampler.generate(
      requests.map((r, i) => ({
        promptIds: promptIds[i]!,
        n: r.n,
        seed: samplingSeed(r.seed),
        maxTokens: r.maxTokens,
        temperature: r.temperature,
        topP: r.topP,
        topK: r.topK,
        stop: r.stop,
        ...(this.prompting.stopIds !== undefined ? { stopIds: this.prompting.stopIds } : {}),
        adapter: this.adapter,
      })),
      { maxBatch: this.maxBatch },
    );
    return generations.map((row, i) => row.map((g) => toCompletion(g, promptIds[i]!)));
  }
}

function toCompletion(g: Generation, promptIds: readonly number[]): Completion {
  if (g.finishReason === 'error') {
    return { text: '', promptIds, ids: [], logprobs: [], finishReason: 'error', error: g.error ?? 'generation failed (no reason given)' };
  }
  return { text: g.text, promptIds, ids: g.ids, logprobs: g.logprobs, finishReason: g.finishReason };
}
