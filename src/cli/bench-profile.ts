/**
 * `troupe bench engine --profile`: where the time of the engine's two kinds of step goes, part
 * by part (engine/kernels/profile-parts.ts), against the float32 matmul peak measured first:
 *
 *   TROUPE_THREADS=1 npx troupe bench engine --profile
 *
 *   train step   the standard benchmark model (BENCH_MODEL, batch 16 x 128): forward,
 *                backward, clip, AdamW
 *   RL update    the learner's PPO-clip + KL update at the default learning run's shape
 *                (train/update-bench.ts): most of a run's step
 * Times are process CPU time (exact for one thread on a busy machine); the kernel wrapper costs
 * a few microseconds a call, so the JavaScript row is an upper bound. Without --profile no
 * kernel is wrapped: the instrumentation costs nothing when off.
 */
import { type Kernels } from '../engine/kernels/types.js';
import { profileKernels } from '../engine/kernels/profile-kernels.js';
import { formatParts, measurePeak, modelMatmuls, profileParts } from '../engine/kernels/profile-parts.js';
import { BENCH_MODEL, timeTrainStep } from '../engine/train-step-bench.js';
import { RUN_MODEL, timeRlUpdate } from '../train/update-bench.js';

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The profile text of `bench engine --profile` on `kernels`. */
export function profileEngine(kernels: Kernels, progress: (line: string) => void = () => {}): string {
  progress('measuring the float32 matmul peak');
  const peak = measurePeak(kernels);
  const lines = [`kernels ${kernels.name}, ${kernels.threads} thread(s); measured peak ${peak.gflops.toFixed(1)} GFLOP/s (float32 matmul ${peak.shape}); CPU time`];

  progress('train step (BENCH_MODEL, batch 16 x 128)');
  const step = profileKernels(kernels, 'cpu');
  const train = timeTrainStep({ kernels: step.kernels, steps: 3, warmup: 1, onTimed: () => step.reset() });
  const stepTotal = train.cpuMs.reduce((s, x) => s + x, 0);
  lines.push('', `train step: median ${median(train.cpuMs).toFixed(0)} ms CPU (${train.cpuMs.map((x) => x.toFixed(0)).join(', ')}), 3 steps profiled`);
  lines.push(formatParts(profileParts(step.rows.values(), modelMatmuls(BENCH_MODEL), stepTotal), peak.gflops));

  progress('RL update (the default run\'s shape)');
  const update = profileKernels(kernels, 'cpu');
  const rl = timeRlUpdate({ kernels: update.kernels, updates: 3, warmup: 1, onTimed: () => update.reset() });
  lines.push('', `RL update: ${rl.sequences} sequences, ${rl.tokens} response tokens; median ${median(rl.cpuMs).toFixed(0)} ms CPU (${rl.cpuMs.map((x) => x.toFixed(0)).join(', ')}), 3 updates profiled`);
  lines.push(formatParts(profileParts(update.rows.values(), modelMatmuls(RUN_MODEL), rl.cpuMs.reduce((s, x) => s + x, 0)), peak.gflops));
  return `${lines.join('\n')}\n`;
}
