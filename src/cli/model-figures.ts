/**
 * The speed figures of a loaded model, shared by `troupe bench model` (a checkpoint folder) and
 * bench/thread-scaling-model.ts (random Qwen3-shaped models at several thread counts):
 *
 *   decode      greedy, `prompt` random tokens then `newTokens` new ones with a KV cache; tokens/s
 *               over the new tokens (batch 1, and `wideBatch` sequences counting all their tokens)
 *   prefill     one pass over `prefill` tokens; tokens/s (the better of two passes)
 *   LoRA train  r=16, alpha=32 on all seven projections, AdamW lr 1e-4, `trainBatch` rows of
 *               `trainContext` tokens, one row per micro-batch, forward + backward + step on the
 *               frozen base; tokens/s over `trainSteps` steps after 1 warm-up
 *
 * Token ids are pseudo-random (seed 1): speed does not depend on what the tokens say. Every
 * figure also feeds a digest of what it computed (greedy ids, the last logits, the LoRA
 * log-probs of every step, bit for bit), so runs on different thread counts can be checked to
 * compute the same numbers.
 */
import { createHash, type Hash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { BufferPool } from '../engine/autograd/buffer-pool.js';
import { Tape } from '../engine/autograd/tape.js';
import type { Kernels } from '../engine/kernels/types.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import { LINEAR_MODULES } from '../engine/model/llama-params.js';
import { AdamW } from '../engine/optim/adamw.js';
import { LlamaInference } from '../engine/sampling/llama-inference.js';
import { Rng } from '../util/rng.js';

/** The work of each figure. */
export interface ModelBenchSizes {
  readonly prompt: number;
  readonly newTokens: number;
  readonly wideBatch: number;
  readonly prefill: number;
  readonly trainBatch: number;
  readonly trainContext: number;
  readonly trainSteps: number;
}

/** The sizes `troupe bench model` uses (and bench/transformers-model-bench.py). */
export const MODEL_BENCH_SIZES: ModelBenchSizes = { prompt: 32, newTokens: 64, wideBatch: 16, prefill: 256, trainBatch: 4, trainContext: 256, trainSteps: 3 };

/** Starts and ends the kernel profile of one figure's timed part (bench-model.ts, TROUPE_PROFILE). */
export interface StageProfile {
  start(): void;
  end(stage: string, wallMs: number): void;
}

export interface ModelFigures {
  readonly decode_b1_tok_s: number;
  readonly decode_b16_tok_s: number;
  readonly prefill_tok_s: number;
  readonly lora_train_tok_s: number;
  /** Mean wall time of one LoRA training step. */
  readonly lora_step_ms: number;
  /** sha256 (first 16 hex digits) of what each figure computed: equal digests, equal numbers. */
  readonly digests: { readonly decode: string; readonly prefill: string; readonly lora: string };
}

function randomIds(rng: Rng, count: number, vocab: number): number[] {
  return Array.from({ length: count }, () => Math.floor(rng.next() * vocab));
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i]! > row[best]!) best = i;
  return best;
}

const hashFloats = (hash: Hash, values: Float32Array): Hash => hash.update(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
const hex = (hash: Hash): string => hash.digest('hex').slice(0, 16);

/** Greedy decoding of `batch` sequences: tokens/s over the new tokens only (prefill untimed). */
function decodeTokS(inference: LlamaInference, batch: number, prompt: number, newTokens: number, rng: Rng, digest: Hash, profile?: StageProfile): number {
  const vocab = inference.model.config.vocab_size;
  const caches = Array.from({ length: batch }, () => inference.newCache(prompt + newTokens));
  try {
    let logits = inference.forward(caches.map((cache) => ({ tokens: randomIds(rng, prompt, vocab), cache })));
    const ids: number[] = [];
    profile?.start();
    const start = performance.now();
    for (let step = 0; step < newTokens; step++) {
      const next = caches.map((_, b) => argmax(logits.subarray(b * vocab, (b + 1) * vocab)));
      ids.push(...next);
      logits = inference.forward(caches.map((cache, b) => ({ tokens: [next[b]!], cache })));
    }
    const ms = performance.now() - start;
    profile?.end(`decode batch ${batch}, ${newTokens} tokens`, ms);
    hashFloats(digest.update(Int32Array.from(ids)), logits);
    return (batch * newTokens) / (ms / 1000);
  } finally {
    for (const cache of caches) cache.free();
  }
}

function prefillTokS(inference: LlamaInference, tokens: number, rng: Rng, digest: Hash): number {
  const cache = inference.newCache(tokens);
  try {
    const ids = randomIds(rng, tokens, inference.model.config.vocab_size);
    const start = performance.now();
    const logits = inference.forward([{ tokens: ids, cache }]);
    const tokS = tokens / ((performance.now() - start) / 1000);
    hashFloats(digest, logits);
    return tokS;
  } finally {
    cache.free();
  }
}

/** LoRA steps: next-token cross-entropy over every row, one row per micro-batch; mean ms a step. */
function loraStepMs(model: LlamaModel, kernels: Kernels, sizes: ModelBenchSizes, rng: Rng, digest: Hash, profile?: StageProfile): number {
  const adapter = model.addAdapter('bench', { r: 16, alpha: 32, targetModules: LINEAR_MODULES }, 1);
  const optimizer = new AdamW(kernels, adapter.parameters, { weightDecay: 0.01 });
  const rows = Array.from({ length: sizes.trainBatch }, () => randomIds(rng, sizes.trainContext, model.config.vocab_size));
  const scored = sizes.trainBatch * (sizes.trainContext - 1);
  const step = (): number => {
    const start = performance.now();
    const pool = new BufferPool(kernels); // as the learner does: rows after the first reuse its arrays
    for (const row of rows) {
      const tape = new Tape(kernels, { pool });
      try {
        const { logprobs } = model.tokenLogprobs(tape, [{ promptIds: row.slice(0, 1), responseIds: row.slice(1) }], { adapter: 'bench' });
        hashFloats(digest, logprobs.data);
        tape.backward(logprobs, new Float32Array(logprobs.size).fill(-1 / scored));
      } finally {
        tape.dispose();
      }
    }
    pool.clear();
    optimizer.step(1e-4);
    optimizer.zeroGrad();
    return performance.now() - start;
  };
  try {
    step();
    profile?.start();
    let total = 0;
    for (let i = 0; i < sizes.trainSteps; i++) total += step();
    profile?.end(`LoRA training, ${sizes.trainSteps} steps`, total);
    return total / sizes.trainSteps;
  } finally {
    optimizer.dispose();
    model.removeAdapter('bench');
  }
}

/**
 * Measures every figure on `model` (whose kernels are `kernels`), saying each as it is done.
 *
 *   const figures = measureModelFigures(model, kernels, MODEL_BENCH_SIZES, { say: console.error });
 */
export function measureModelFigures(model: LlamaModel, kernels: Kernels, sizes: ModelBenchSizes, options: { say?: (line: string) => void; profile?: StageProfile } = {}): ModelFigures {
  const say = options.say ?? (() => {});
  const rng = new Rng(1);
  const round = (x: number, digits: number): number => Number(x.toFixed(digits));
  const inference = new LlamaInference(model);
  try {
    const decode = createHash('sha256');
    decodeTokS(inference, 1, 8, 2, rng, createHash('sha256')); // warm-up: first calls allocate scratch
    const decode_b1_tok_s = round(decodeTokS(inference, 1, sizes.prompt, sizes.newTokens, rng, decode, options.profile), 2);
    say(`decode batch 1: ${decode_b1_tok_s} tok/s`);
    const decode_b16_tok_s = round(decodeTokS(inference, sizes.wideBatch, sizes.prompt, sizes.newTokens, rng, decode), 2);
    say(`decode batch ${sizes.wideBatch}: ${decode_b16_tok_s} tok/s`);
    const prefill = createHash('sha256');
    const prefill_tok_s = round(Math.max(prefillTokS(inference, sizes.prefill, rng, prefill), prefillTokS(inference, sizes.prefill, rng, prefill)), 1);
    say(`prefill ${sizes.prefill} tokens: ${prefill_tok_s} tok/s`);
    const lora = createHash('sha256');
    const stepMs = loraStepMs(model, kernels, sizes, rng, lora, options.profile);
    const lora_train_tok_s = round((sizes.trainBatch * sizes.trainContext) / (stepMs / 1000), 1);
    say(`LoRA training ${sizes.trainBatch} x ${sizes.trainContext}: ${lora_train_tok_s} tok/s`);
    return { decode_b1_tok_s, decode_b16_tok_s, prefill_tok_s, lora_train_tok_s, lora_step_ms: round(stepMs, 1), digests: { decode: hex(decode), prefill: hex(prefill), lora: hex(lora) } };
  } finally {
    inference.dispose();
  }
}
