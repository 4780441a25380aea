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
 * Token ids are pseudo-random: speed does not depend on what the tokens say. The figures are
 * measured by model-figures.ts (bench/thread-scaling-model.ts measures them on random models).
 */
import { performance } from 'node:perf_hooks';
import { resolveModel } from '../engine/hub/resolve-model.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { resolveBackend, threadsFromEnv } from '../engine/kernels/get-kernels.js';
import { createNativeKernels } from '../engine/kernels/native-kernels.js';
import { createWasmKernels } from '../engine/kernels/wasm-kernels.js';
import { type ProfiledKernels, profileKernels } from '../engine/kernels/profile-kernels.js';
import { loadModel } from '../engine/io/model-checkpoint.js';
import { MODEL_BENCH_SIZES, measureModelFigures, type ModelBenchSizes, type StageProfile } from './model-figures.js';

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
  /** Scales the work down for tests (default: the benchmark's full sizes). */
  readonly sizes?: ModelBenchSizes;
}

/** TROUPE_PROFILE=1 (wall) or cpu: the kernel time of a stage's timed part, by op (profile-kernels.ts). */
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

export async function benchModel(idOrFolder: string, options: ModelBenchOptions = {}): Promise<ModelBenchResult> {
  const sizes = options.sizes ?? MODEL_BENCH_SIZES;
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
  try {
    const round = (x: number, digits: number): number => Number(x.toFixed(digits));
    const { decode_b1_tok_s, decode_b16_tok_s, prefill_tok_s, lora_train_tok_s } = measureModelFigures(model, kernels, sizes, { say, profile });
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
    model.dispose();
    await own.dispose();
  }
}
