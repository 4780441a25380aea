/**
 * Sampling throughput of the embedded engine on the standard benchmark model (Llama-style,
 * 4 layers, hidden 256, 4 heads, intermediate 1024, vocab 64, context 128), for
 * `troupe bench engine`:
 *
 * - decode_b1_tok_s / decode_b16_tok_s: generated tokens per second of Sampler.generate for
 *   one request with n = 1 or n = 16 continuations (the AT-GRPO group shape: one shared
 *   prompt of 16 tokens), 96 tokens each, no stop; end to end (prefill, KV-cache decoding,
 *   sampling, stop checks) - what a rollout sees.
 * - prefill_tok_s: prompt tokens per second prefilling 16 distinct 64-token prompts in
 *   one batched call; prefill_b1_tok_s: one 128-token prompt alone (capped by the context).
 *
 * Each figure is the median of `runs` timed repetitions after one warm-up.
 */
import { performance } from 'node:perf_hooks';
import { Rng } from '../../util/rng.js';
import type { Kernels } from '../kernels/types.js';
import { llamaConfig, type LlamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { Sampler } from './generate.js';
import { LlamaInference } from './llama-inference.js';

export const BENCH_MODEL: LlamaConfig = llamaConfig({ hidden: 256, layers: 4, heads: 4, intermediate: 1024, vocab: 64, context: 128 });

export interface SamplingBench {
  readonly decode_b1_tok_s: number;
  readonly decode_b16_tok_s: number;
  readonly prefill_tok_s: number;
  readonly prefill_b1_tok_s: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median rate (units / second) of `fn`, which returns the units of work it did. */
function rate(fn: () => number, runs: number): number {
  fn(); // warm-up: JIT, scratch buffers
  const rates: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const units = fn();
    rates.push(units / ((performance.now() - start) / 1000));
  }
  return median(rates);
}

function randomIds(rng: Rng, length: number, vocab: number): number[] {
  return Array.from({ length }, () => 4 + rng.int(vocab - 4));
}

export interface SamplingBenchOptions {
  /** Timed repetitions per figure (median reported). Default 3. */
  readonly runs?: number;
  /** Tokens generated per continuation. Default 96. */
  readonly decodeTokens?: number;
  /** Prompt tokens of each of the 16 prefill prompts. Default 64. */
  readonly prefillTokens?: number;
  /** Another model (tests use a tiny one). Default BENCH_MODEL. */
  readonly config?: LlamaConfig;
}

export function benchSampling(kernels: Kernels, options: SamplingBenchOptions = {}): SamplingBench {
  const runs = options.runs ?? 3;
  const decodeTokens = options.decodeTokens ?? 96;
  const prefillTokens = options.prefillTokens ?? 64;
  const config = options.config ?? BENCH_MODEL;
  const model = LlamaModel.create(kernels, config, { seed: 0 });
  const sampler = new Sampler(model, CharTokenizer.standard());
  const inference = new LlamaInference(model);
  const rng = new Rng(1);
  const V = config.vocab_size;
  try {
    const prompt = randomIds(rng, 16, V);
    const decode = (n: number) => (): number => {
      const [gens] = sampler.generate([{ promptIds: prompt, n, seed: 3, maxTokens: decodeTokens, temperature: 1, stopIds: [] }]);
      return gens!.reduce((sum, g) => sum + g.ids.length, 0);
    };
    const prompts16 = Array.from({ length: 16 }, () => randomIds(rng, prefillTokens, V));
    const promptLong = randomIds(rng, Math.min(128, config.max_position_embeddings), V);
    const prefill = (batch: number[][]) => (): number => {
      const caches = batch.map((p) => inference.newCache(p.length));
      inference.forward(batch.map((tokens, i) => ({ tokens, cache: caches[i]! })));
      for (const c of caches) c.free();
      return batch.reduce((sum, p) => sum + p.length, 0);
    };
    return {
      decode_b1_tok_s: rate(decode(1), runs),
      decode_b16_tok_s: rate(decode(16), runs),
      prefill_tok_s: rate(prefill(prompts16), runs),
      prefill_b1_tok_s: rate(prefill([promptLong]), runs),
    };
  } finally {
    inference.dispose();
    sampler.dispose();
    model.dispose();
  }
}
