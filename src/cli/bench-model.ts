/**
 * `troupe bench model <folder | hub id>`: the speed and memory of a real checkpoint on the
 * embedded engine, with exactly the work bench/transformers-model-bench.py gives transformers
 * + peft, so the two can be set side by side (bench/model-vs-transformers.sh):
 *
 *   decode      greedy, 32 prompt tokens then 64 new tokens with a KV cache; tokens/s over the
 *               64 (batch 1; batch 16 counts 16 x 64 tokens)
 *   prefill     batch 1 x 256 prompt tokens in one pass; tokens/s
 *   LoRA train  r=16, alpha=32 on all seven projections, AdamW lr 1e-4, batch 4 x 256 tokens,
 *               forward + backward + step on the frozen base as stored (bf16 stays bf16);
 *               tokens/s as the mean over 3 steps after 1 warm-up
 *   peak RSS    of the whole process
 * Token ids are pseudo-random: speed does not depend on what the tokens say.
 */
import { performance } from 'node:perf_hooks';
import { BufferPool } from '../engine/autograd/buffer-pool.js';
import { Tape } from '../engine/autograd/tape.js';
import { resolveModel } from '../engine/hub/resolve-model.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { resolveBackend, threadsFromEnv } from '../engine/kernels/get-kernels.js';
import { createNativeKernels } from '../engine/kernels/native-kernels.js';
import type { Kernels } from '../engine/kernels/types.js';
import { createWasmKernels } from '../engine/kernels/wasm-kernels.js';
import { type ProfiledKernels, profileKernels } from '../engine/kernels/profile-kernels.js';
import { loadModel } from '../engine/io/model-checkpoint.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import { LINEAR_MODULES } from '../engine/model/llama-params.js';
import { AdamW } from '../engine/optim/adamw.js';
import { LlamaInference } from '../engine/sampling/llama-inference.js';
import { Rng } from '../util/rng.js';

export interface ModelBenchResult {
  readonly backend: 'native' | 'wasm';
  readonly model: string;
  readonly threads: number;
  readonly parameters: number;
  readonly base_dtype: string;
  /** How the bf16 base was multiplied (engine.bf16_matmul / TROUPE_BF16_MATMUL): fast or exact. */
  readonly bf16_matmul: string;
  readonly load_s: number;
  readonly decode_b1_tok_s: number;
  readonly decode_b16_tok_s: number;
  readonly prefill_tok_s: number;
  readonly lora_train_tok_s: number;
  readonly peak_rss_mb: number;
}

export interface ModelBenchOptions {
  readonly backend?: BackendName;
  readonly threads?: number;
  readonly progress?: (line: string) => void;
  /** Scales the work down for tests (default the issue's sizes). */
  readonly sizes?: { prompt: number; newTokens: number; wideBatch: number; prefill: number; trainBatch: number; trainContext: number; trainSteps: number };
}

const ISSUE_SIZES = { prompt: 32, newTokens: 64, wideBatch: 16, prefill: 256, trainBatch: 4, trainContext: 256, trainSteps: 3 };

function randomIds(rng: Rng, count: number, vocab: number): number[] {
  return Array.from({ length: count }, () => Math.floor(rng.next() * vocab));
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i]! > row[best]!) best = i;
  return best;
}

/** TROUPE_PROFILE=1 (wall) or cpu: the kernel time of a stage's timed part, by op (profile-kernels.ts). */
interface StageProfile {
  start(): void;
  end(stage: string, wallMs: number): void;
}

function stageProfile(profiled: ProfiledKernels, cpuClock: boolean, progress: (line: string) => void): StageProfile {
  const cpuMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let cpuStart = 0;
  return {
    start: () => {
      profiled.reset();
      cpuStart = cpuMs();
    },
    end: (stage, wallMs) => {
      const total = cpuClock ? cpuMs() - cpuStart : wallMs;
      progress(`profile of ${stage} (${total.toFixed(0)} ms ${cpuClock ? 'CPU' : 'wall'}):\n${profiled.table(total)}`);
    },
  };
}

/** Greedy decoding of `batch` sequences: tokens/s over the new tokens only (prefill untimed). */
function decodeTokS(inference: LlamaInference, vocab: number, batch: number, prompt: number, newTokens: number, rng: Rng, profile?: StageProfile): number {
  const caches = Array.from({ length: batch }, () => inference.newCache(prompt + newTokens));
  try {
    let logits = inference.forward(caches.map((cache) => ({ tokens: randomIds(rng, prompt, vocab), cache })));
    profile?.start();
    const start = performance.now();
    for (let step = 0; step < newTokens; step++) {
      const next = caches.map((_, b) => argmax(logits.subarray(b * vocab, (b + 1) * vocab)));
      logits = inference.forward(caches.map((cache, b) => ({ tokens: [next[b]!], cache })));
    }
    const ms = performance.now() - start;
    profile?.end(`decode batch ${batch}, ${newTokens} tokens`, ms);
    return (batch * newTokens) / (ms / 1000);
  } finally {
    for (const cache of caches) cache.free(inference.model.kernels);
  }
}

function prefillTokS(inference: LlamaInference, vocab: number, tokens: number, rng: Rng): number {
  const cache = inference.newCache(tokens);
  try {
    const start = performance.now();
    inference.forward([{ tokens: randomIds(rng, tokens, vocab), cache }]);
    return tokens / ((performance.now() - start) / 1000);
  } finally {
    cache.free(inference.model.kernels);
  }
}

/** One LoRA step per call: next-token cross-entropy over every row, one row per micro-batch. */
function loraTrainTokS(model: LlamaModel, kernels: Kernels, sizes: typeof ISSUE_SIZES, rng: Rng, profile?: StageProfile): number {
  const adapter = model.addAdapter('bench', { r: 16, alpha: 32, targetModules: LINEAR_MODULES }, 1);
  const optimizer = new AdamW(kernels, adapter.parameters, { weightDecay: 0.01 });
  const vocab = model.config.vocab_size;
  const rows = Array.from({ length: sizes.trainBatch }, () => randomIds(rng, sizes.trainContext, vocab));
  const scored = sizes.trainBatch * (sizes.trainContext - 1);
  const step = (): number => {
    const start = performance.now();
    const pool = new BufferPool(kernels); // as the learner does: rows after the first reuse its arrays
    for (const row of rows) {
      const tape = new Tape(kernels, { pool });
      try {
        const { logprobs } = model.tokenLogprobs(tape, [{ promptIds: row.slice(0, 1), responseIds: row.slice(1) }], { adapter: 'bench' });
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
    return (sizes.trainBatch * sizes.trainContext) / (total / sizes.trainSteps / 1000);
  } finally {
    optimizer.dispose();
    model.removeAdapter('bench');
  }
}

export async function benchModel(idOrFolder: string, options: ModelBenchOptions = {}): Promise<ModelBenchResult> {
  const sizes = options.sizes ?? ISSUE_SIZES;
  const progress = options.progress ?? (() => {});
  // The process's resident memory after each stage and its peak so far (maxRSS is in KB), to
  // see which stage sets the peak; external = memory outside the JavaScript heap that V8 knows
  // of (the native backend's kernel memory).
  const say = (line: string): void => {
    const { rss, external } = process.memoryUsage();
    const mb = (bytes: number): number => Math.round(bytes / 2 ** 20);
    progress(`${line} (RSS ${mb(rss)} MB, peak ${mb(process.resourceUsage().maxRSS * 1024)} MB, external ${mb(external)} MB)`);
  };
  const folder = await resolveModel(idOrFolder);
  const backend = resolveBackend(options.backend ?? 'auto');
  const threads = options.threads ?? threadsFromEnv();
  // Its own kernels (not the process-wide ones), so they can be disposed at the end.
  const own = backend === 'native' ? await createNativeKernels({ threads }) : await createWasmKernels({ threads });
  const profileMode = process.env.TROUPE_PROFILE;
  const profiled = profileMode === '1' || profileMode === 'cpu' ? profileKernels(own, profileMode === 'cpu' ? 'cpu' : 'wall') : undefined;
  const profile = profiled && stageProfile(profiled, profileMode === 'cpu', progress);
  const kernels = profiled?.kernels ?? own;
  const loadStart = performance.now();
  const { model } = loadModel(kernels, folder, { frozen: true });
  const load_s = (performance.now() - loadStart) / 1000;
  const dtypes = new Set([...model.parameters.values()].map((t) => t.dtype));
  say(`loaded ${folder} in ${load_s.toFixed(1)} s: ${(model.parameterCount() / 1e6).toFixed(0)}M parameters (${[...dtypes].join(' + ')}), ${backend} backend, ${kernels.threads} thread(s)`);
  const rng = new Rng(1);
  const vocab = model.config.vocab_size;
  const inference = new LlamaInference(model);
  try {
    const round = (x: number, digits: number): number => Number(x.toFixed(digits));
    decodeTokS(inference, vocab, 1, 8, 2, rng); // warm-up: first calls allocate scratch
    const decode_b1_tok_s = round(decodeTokS(inference, vocab, 1, sizes.prompt, sizes.newTokens, rng, profile), 2);
    say(`decode batch 1: ${decode_b1_tok_s} tok/s`);
    const decode_b16_tok_s = round(decodeTokS(inference, vocab, sizes.wideBatch, sizes.prompt, sizes.newTokens, rng), 2);
    say(`decode batch ${sizes.wideBatch}: ${decode_b16_tok_s} tok/s`);
    const prefill_tok_s = round(Math.max(prefillTokS(inference, vocab, sizes.prefill, rng), prefillTokS(inference, vocab, sizes.prefill, rng)), 1);
    say(`prefill ${sizes.prefill} tokens: ${prefill_tok_s} tok/s`);
    const lora_train_tok_s = round(loraTrainTokS(model, kernels, sizes, rng, profile), 1);
    say(`LoRA training ${sizes.trainBatch} x ${sizes.trainContext}: ${lora_train_tok_s} tok/s`);
    return {
      backend,
      model: idOrFolder,
      threads: kernels.threads,
      parameters: model.parameterCount(),
      base_dtype: [...dtypes].join('+'),
      bf16_matmul: kernels.bf16Matmul,
      load_s: round(load_s, 2),
      decode_b1_tok_s,
      decode_b16_tok_s,
      prefill_tok_s,
      lora_train_tok_s,
      // maxRSS is in kilobytes.
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    inference.dispose();
    model.dispose();
    await own.dispose();
  }
}
