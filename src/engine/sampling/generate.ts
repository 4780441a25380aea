/**
 * Sampling from the embedded engine with a KV cache, batched across sequences:
 *
 *   const sampler = new Sampler(model, tokenizer);
 *   const [completions] = sampler.generate([{ promptIds, n: 4, seed: 7, maxTokens: 32,
 *     temperature: 1, stop: ['\n'] }]);           // 4 Generations sharing one prefill
 *   await sampler.generateLive(requests, { onToken: (t) => send(t) });   // streaming
 *
 * Each distinct prompt (per adapter) is prefilled ONCE; its K continuations each start from
 * a copy of that cache and draw from their own Rng.derive(seed, i). All live continuations
 * of all requests decode together, one token per step, in one batched forward. Results are
 * a deterministic function of the requests and the weights (the batch composition does not
 * depend on timing). The sampler reads the model's weights and adapters live, so it always
 * samples from the current policy after optimizer steps.
 *
 * Both entry points run the same step-wise decode (`decodeSteps`, a generator that pauses
 * after each batched step): `generate` runs it straight through, `generateLive` returns to
 * the event loop at every pause so a server can write each token while the batch goes on.
 * Pausing changes nothing that is computed, only when the caller gets to look.
 */
import { TroupeError } from '../../util/errors.js';
import { Rng } from '../../util/rng.js';
import { checkedLogitMask, maskLogits } from '../logit-mask.js';
import type { LlamaModel } from '../model/llama-model.js';
import type { Tokenizer } from '../tokenizer/types.js';
import type { SequenceCache } from './kv-cache.js';
import { LlamaInference, type Segment } from './llama-inference.js';
import { type RowSampler, sampleTokenRows, type SamplingParams, type TokenChoice } from './sample-token.js';
import type { GenerateOptions, GenerateRequest, Generation } from './types.js';

/** The whole of one decode run: it pauses (yields) after each batched step. */
type DecodeSteps = Generator<void, Generation[][], void>;

/** Most prompt rows prefilled in one forward call (bounds scratch memory). */
const PREFILL_ROWS = 2048;

interface Prompt {
  readonly ids: readonly number[];
  readonly adapter?: string;
  cache?: SequenceCache;
  logits?: Float32Array;
  /** Continuations not yet started; the prompt cache is freed when this reaches 0. */
  pending: number;
}

interface Continuation {
  readonly request: GenerateRequest;
  readonly params: SamplingParams;
  readonly prompt: Prompt;
  readonly rng: Rng;
  readonly stopIds: ReadonlySet<number>;
  readonly out: { ids: number[]; logprobs: number[]; samplingLogprobs: number[] };
  readonly slot: { request: number; index: number };
  cache?: SequenceCache;
}

export class Sampler {
  readonly model: LlamaModel;
  readonly tokenizer: Tokenizer;
  /** Ids never sampled (see logit-mask.ts); empty by default. */
  readonly logitMask: Int32Array;
  private readonly inference: LlamaInference;

  /**
   * `options.logitMask`: ids the sampler must never produce (their logits become MASKED_LOGIT
   * before a token is drawn, so the recorded log-probs are those of the masked distribution);
   * a learner of the same policy masks the same ids (LlamaModel.tokenLogprobs).
   */
  constructor(model: LlamaModel, tokenizer: Tokenizer, options: { logitMask?: ArrayLike<number> } = {}) {
    if (tokenizer.vocabSize > model.config.vocab_size) {
      throw new TroupeError('config', `tokenizer has ${tokenizer.vocabSize} tokens but the model's vocab_size is ${model.config.vocab_size}; use a model with a larger vocabulary`);
    }
    this.model = model;
    this.tokenizer = tokenizer;
    this.logitMask = checkedLogitMask(options.logitMask ?? [], model.config.vocab_size);
    this.inference = new LlamaInference(model);
  }

  /** One array of exactly `n` Generations per request, in request order. */
  generate(requests: readonly GenerateRequest[], options: GenerateOptions = {}): Generation[][] {
    const steps = this.decodeSteps(requests, options);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  }

  /**
   * The same Generations as `generate`, but the event loop runs between decode steps, so
   * `options.onToken` can stream each token while the others are still being decoded. Costs
   * one event-loop turn per step; the sampler must not be used by anyone else meanwhile.
   */
  async generateLive(requests: readonly GenerateRequest[], options: GenerateOptions = {}): Promise<Generation[][]> {
    const steps = this.decodeSteps(requests, options);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private *decodeSteps(requests: readonly GenerateRequest[], options: GenerateOptions): DecodeSteps {
    const scoreTemperature = options.scoreTemperature ?? 1;
    const maxBatch = options.maxBatch ?? 64;
    if (!(scoreTemperature > 0)) throw new TroupeError('input', `scoreTemperature must be > 0, got ${scoreTemperature}`);
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new TroupeError('input', `maxBatch must be a positive integer, got ${maxBatch}`);
    const results: Generation[][] = requests.map((r) => new Array<Generation>(r.n));
    const prompts = new Map<string, Prompt>();
    const queue: Continuation[] = [];
    requests.forEach((request, r) => {
      const params = checkRequest(request, r);
      const problem = this.promptProblem(request);
      if (problem !== undefined) {
        for (let i = 0; i < request.n; i++) results[r]![i] = { ids: [], logprobs: [], samplingLogprobs: [], text: '', finishReason: 'error', error: problem };
        return;
      }
      if (request.adapter !== undefined && !this.model.adapters.has(request.adapter)) {
        throw new TroupeError('config', `request ${r} asks for LoRA adapter '${request.adapter}'; available: ${[...this.model.adapters.keys()].join(', ') || '(none)'}`);
      }
      if (request.n === 0) return;
      const key = `${request.adapter ?? ''}\u0000${request.promptIds.join(',')}`;
      let prompt = prompts.get(key);
      if (prompt === undefined) {
        prompt = { ids: request.promptIds, adapter: request.adapter, pending: 0 };
        prompts.set(key, prompt);
      }
      const eos = this.tokenizer.special.eos;
      const stopIds = new Set(request.stopIds ?? (eos === undefined ? [] : [eos]));
      for (let i = 0; i < request.n; i++) {
        prompt.pending += 1;
        queue.push({ request, params, prompt, rng: Rng.derive(request.seed, i), stopIds, out: { ids: [], logprobs: [], samplingLogprobs: [] }, slot: { request: r, index: i } });
      }
    });

    try {
      this.prefill([...prompts.values()]);
      const active: Continuation[] = [];
      let next = 0;
      const finish = (c: Continuation, generation: Generation): void => {
        results[c.slot.request]![c.slot.index] = generation;
        if (c.cache !== undefined) c.cache.free();
        c.cache = undefined;
      };
      const V = this.model.config.vocab_size;
      const kernels = this.model.kernels;
      const rowSampler: RowSampler | undefined = kernels.sampleRows === undefined ? undefined : (kernels as RowSampler);
      // One token for each continuation from its row of `logits` (masked first).
      const choose = (batch: readonly Continuation[], logits: Float32Array): TokenChoice[] => {
        maskLogits(logits, batch.length, V, this.logitMask);
        return sampleTokenRows(logits, V, batch, scoreTemperature, rowSampler);
      };
      // Records `choice` for `c` (its row: `logits`); returns true when `c` continues.
      const step = (c: Continuation, logits: Float32Array, choice: TokenChoice): boolean => {
        c.out.ids.push(choice.id);
        c.out.logprobs.push(choice.logprob);
        c.out.samplingLogprobs.push(choice.samplingLogprob);
        const done = this.finished(c);
        options.onToken?.({ ...c.slot, id: choice.id, logprob: choice.logprob, logits, ...(done ? { generation: done } : {}) });
        if (done !== undefined) finish(c, done);
        return done === undefined;
      };
      while (next < queue.length || active.length > 0) {
        while (active.length < maxBatch && next < queue.length) {
          const c = queue[next++]!;
          const prompt = c.prompt;
          const continues = step(c, prompt.logits!, choose([c], prompt.logits!)[0]!);
          if (continues) {
            const capacity = Math.min(prompt.ids.length + c.request.maxTokens - 1, this.model.config.max_position_embeddings);
            c.cache = this.inference.newCache(capacity);
            c.cache.copyFrom(prompt.cache!);
            active.push(c);
          }
          prompt.pending -= 1;
          if (prompt.pending === 0) prompt.cache!.free();
        }
        if (active.length === 0) continue;
        // Rows grouped by adapter (stable), as the inference forward requires.
        active.sort((a, b) => adapterKey(a).localeCompare(adapterKey(b)));
        const segments: Segment[] = active.map((c) => ({ tokens: [c.out.ids[c.out.ids.length - 1]!], cache: c.cache!, adapter: c.request.adapter }));
        const logits = this.inference.forward(segments).subarray(0, active.length * V);
        const choices = choose(active, logits);
        const still: Continuation[] = [];
        active.forEach((c, b) => {
          if (step(c, logits.subarray(b * V, (b + 1) * V), choices[b]!)) still.push(c);
        });
        active.length = 0;
        active.push(...still);
        yield;
      }
    } finally {
      for (const c of queue) if (c.cache !== undefined) c.cache.free();
      for (const p of prompts.values()) if (p.pending > 0 && p.cache !== undefined) p.cache.free();
    }
    return results;
  }

  /** Frees the sampler's scratch memory (not the model). */
  dispose(): void {
    this.inference.dispose();
  }

  /** Prefills every prompt once, batching prompts of the same adapter into shared calls. */
  private prefill(prompts: Prompt[]): void {
    const ordered = [...prompts].sort((a, b) => (a.adapter ?? '').localeCompare(b.adapter ?? ''));
    let batch: Prompt[] = [];
    let rows = 0;
    const flush = (): void => {
      if (batch.length === 0) return;
      const logits = this.inference.forward(batch.map((p) => ({ tokens: p.ids, cache: p.cache!, adapter: p.adapter })));
      const V = this.model.config.vocab_size;
      batch.forEach((p, i) => {
        p.logits = logits.slice(i * V, (i + 1) * V);
      });
      batch = [];
      rows = 0;
    };
    for (const p of ordered) {
      if (rows + p.ids.length > PREFILL_ROWS) flush();
      p.cache = this.inference.newCache(p.ids.length);
      batch.push(p);
      rows += p.ids.length;
    }
    flush();
  }

  /** Why a continuation ends after its latest token, or undefined when it goes on. */
  private finished(c: Continuation): Generation | undefined {
    const { ids, logprobs, samplingLogprobs } = c.out;
    const last = ids[ids.length - 1]!;
    const make = (finishReason: 'stop' | 'length', text: string, stopString?: string): Generation => ({
      ids: [...ids],
      logprobs: [...logprobs],
      samplingLogprobs: [...samplingLogprobs],
      text,
      finishReason,
      ...(stopString !== undefined ? { stopString } : {}),
    });
    if (c.stopIds.has(last)) return make('stop', this.tokenizer.decode(ids.slice(0, -1), { skipSpecial: true }));
    const text = this.tokenizer.decode(ids, { skipSpecial: true });
    const stops = c.request.stop ?? [];
    if (stops.length > 0) {
      // Only a stop that ends inside the newest token's text can be new.
      const previous = this.tokenizer.decode(ids.slice(0, -1), { skipSpecial: true }).length;
      let best: { at: number; stop: string } | undefined;
      for (const stop of stops) {
        const at = text.indexOf(stop, Math.max(0, previous - stop.length + 1));
        if (at >= 0 && (best === undefined || at < best.at)) best = { at, stop };
      }
      if (best !== undefined) return make('stop', text.slice(0, best.at), best.stop);
    }
    if (ids.length >= c.request.maxTokens) return make('length', text);
    if (c.prompt.ids.length + ids.length >= this.model.config.max_position_embeddings) return make('length', text);
    return undefined;
  }

  private promptProblem(request: GenerateRequest): string | undefined {
    const ids = request.promptIds;
    const { vocab_size: V, max_position_embeddings: context } = this.model.config;
    if (ids.length === 0) return 'empty prompt: the first token needs at least one prompt token (e.g. BOS)';
    const bad = ids.find((id) => !Number.isInteger(id) || id < 0 || id >= V);
    if (bad !== undefined) return `prompt token id ${bad} is outside the vocabulary 0..${V - 1}`;
    if (ids.length > context) return `prompt of ${ids.length} tokens exceeds the model's context of ${context} tokens`;
    return undefined;
  }
}

function adapterKey(c: Continuation): string {
  return c.request.adapter ?? '';
}

/** Checks a request's parameters (caller mistakes throw) and returns its sampling params. */
function checkRequest(request: GenerateRequest, index: number): SamplingParams {
  const bad = (problem: string) => new TroupeError('input', `generate request ${index}: ${problem}`);
  if (!Number.isInteger(request.n) || request.n < 0) throw bad(`n must be a non-negative integer, got ${request.n}`);
  if (!Number.isInteger(request.maxTokens) || request.maxTokens < 1) throw bad(`maxTokens must be a positive integer, got ${request.maxTokens}`);
  const temperature = request.temperature ?? 1;
  const topP = request.topP ?? 1;
  const topK = request.topK ?? 0;
  if (!(temperature >= 0) || !Number.isFinite(temperature)) throw bad(`temperature must be >= 0 (0 = greedy), got ${temperature}`);
  if (!(topP > 0 && topP <= 1)) throw bad(`topP must be in (0, 1], got ${topP}`);
  if (!Number.isInteger(topK) || topK < 0) throw bad(`topK must be a non-negative integer (0 disables), got ${topK}`);
  if ((request.stop ?? []).some((s) => s.length === 0)) throw bad('stop strings must not be empty');
  return { temperature, topP, topK };
}

/** One-shot convenience: a Sampler for one call. */
export function generate(model: LlamaModel, tokenizer: Tokenizer, requests: readonly GenerateRequest[], options: GenerateOptions = {}): Generation[][] {
  const sampler = new Sampler(model, tokenizer);
  try {
    return sampler.generate(requests, options);
  } finally {
    sampler.dispose();
  }
}
