import { Rng } from '../util/rng.js';
import { BufferPool } from './autograd/buffer-pool.js';
import { Tape } from './autograd/tape.js';
import type { Kernels } from './kernels/types.js';
import { llamaConfig, type LlamaConfig } from './model/llama-config.js';
import { languageModelLoss } from './model/lm-loss.js';
import { LlamaModel } from './model/llama-model.js';
import { AdamW } from './optim/adamw.js';
import { clipGradNorm } from './optim/clip-grad-norm.js';

/** The standard benchmark model of `troupe bench engine`. */
export const BENCH_MODEL: LlamaConfig = llamaConfig({ hidden: 256, layers: 4, heads: 4, intermediate: 1024, vocab: 64, context: 128 });

export interface TrainStepTiming {
  /** Median wall time of one step (forward + backward + clip + AdamW), milliseconds. */
  readonly medianMs: number;
  readonly timesMs: readonly number[];
  /** Process CPU time (all threads) of each timed step: on a busy machine, with one thread,
   *  close to the wall time on an idle one. */
  readonly cpuMs: readonly number[];
  /** Loss of each timed step (a sanity check that training happens). */
  readonly losses: readonly number[];
  readonly parameters: number;
}

/**
 * Times full training steps of a freshly initialised model on random tokens: forward,
 * backward, gradient clipping and AdamW, all on `kernels`. Defaults are the standard
 * benchmark (BENCH_MODEL, batch 16, context 128).
 *
 *   const { medianMs } = timeTrainStep({ kernels: await createWasmKernels({ threads: 2 }) });
 */
export function timeTrainStep(options: {
  kernels: Kernels;
  config?: LlamaConfig;
  batch?: number;
  context?: number;
  steps?: number;
  warmup?: number;
  seed?: number;
  /** Called before the first timed step (a kernel profile resets there). */
  onTimed?: () => void;
}): TrainStepTiming {
  const { kernels, config = BENCH_MODEL, batch = 16, context = 128, steps = 3, warmup = 1, seed = 0 } = options;
  const model = LlamaModel.create(kernels, config, { seed });
  const opt = new AdamW(kernels, model.trainableParameters(), { weightDecay: 0.1 });
  const rng = Rng.derive(seed, 'bench-tokens');
  const rows = Array.from({ length: batch }, () => Array.from({ length: context + 1 }, () => rng.int(config.vocab_size)));
  const pool = new BufferPool(kernels); // steps repeat shapes: recycle the step's buffers
  const timesMs: number[] = [];
  const cpuMs: number[] = [];
  const losses: number[] = [];
  for (let s = 0; s < warmup + steps; s++) {
    if (s === warmup) options.onTimed?.();
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const tape = new Tape(kernels, { pool });
    const loss = languageModelLoss(tape, model, rows);
    const lossValue = loss.data[0]!;
    tape.backward(loss);
    tape.dispose();
    clipGradNorm(kernels, opt.parameters.values(), 1);
    opt.step(1e-3);
    opt.zeroGrad();
    const elapsed = performance.now() - start;
    const cpu = process.cpuUsage(cpuStart);
    if (s >= warmup) {
      timesMs.push(elapsed);
      cpuMs.push((cpu.user + cpu.system) / 1000);
      losses.push(lossValue);
    }
  }
  const parameters = model.parameterCount();
  pool.clear();
  opt.dispose();
  model.dispose();
  const sorted = [...timesMs].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)]!, timesMs, cpuMs, losses, parameters };
}
