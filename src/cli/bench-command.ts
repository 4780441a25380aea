/**
 * `troupe bench engine`: speed of the embedded engine on the standard benchmark model of
 * the project (Llama-style, 4 layers, hidden 256, 4 heads, intermediate 1024, vocab 64; batch 16
 * x context 128): one training step, decoding with the KV cache, prefill, and matmul
 * throughput on 1 and 2 threads; then how the training step and the matmuls scale from 1
 * thread to N (1, 2, 4, 8, ... and N itself), with a check that every thread count computes
 * the same losses.
 *
 *   npx troupe bench engine              # a table, with the machine and its load
 *   npx troupe bench engine --json       # one JSON object (fields below)
 *   npx troupe bench engine --threads 8  # training and sampling on 8 threads; scaling 1-2-4-8
 *   npx troupe bench engine --backend wasm --json   # the WebAssembly kernels (default: auto)
 *
 * Numbers on a shared machine are only as good as its idle time: the load average at the
 * start is printed, with a warning when other processes compete for the cores.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Command } from 'commander';
import { benchGrpoStep } from './bench-grpo-step.js';
import { profileEngine } from './bench-profile.js';
import { formatParts } from '../engine/kernels/profile-parts.js';
import { benchModel } from './bench-model.js';
import { measureOtherCpuBusy } from './cpu-busy.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { createKernels, resolveBackend, threadsFromEnv } from '../engine/kernels/get-kernels.js';
import { measureMatmul, type MatmulShape } from '../engine/kernels/measure-matmul.js';
import type { Kernels } from '../engine/kernels/types.js';
import type { LlamaConfig } from '../engine/model/llama-config.js';
import { benchSampling } from '../engine/sampling/bench-sampling.js';
import { BENCH_MODEL, timeTrainStep } from '../engine/train-step-bench.js';
import { backendOption } from './backend-option.js';
import { threadsOption } from './threads-option.js';
import { invariant } from '../util/errors.js';
import { checkThreads } from '../util/thread-count.js';

export interface EngineBenchOptions {
  /** Threads for the training step and sampling; scaling is measured from 1 up to it.
   *  Default: TROUPE_THREADS, else the cores this process may use. */
  readonly threads?: number;
  /** Kernels to measure (default auto: native when the addon loaded). */
  readonly backend?: BackendName;
  /** Model, batch and context of the training step; defaults are the standard benchmark. */
  readonly config?: LlamaConfig;
  readonly batch?: number;
  readonly context?: number;
  /** Timed training steps (after one warm-up). Default 5. */
  readonly trainSteps?: number;
  /** Timed repetitions of each sampling figure. Default 3. */
  readonly samplingRuns?: number;
  readonly decodeTokens?: number;
  readonly prefillTokens?: number;
  /** Timed batches per matmul figure and their minimum length. Defaults 5 and 30 ms. */
  readonly matmulRuns?: number;
  readonly matmulMinBatchMs?: number;
  /** Receives one line per phase (the command writes them to stderr). */
  readonly progress?: (line: string) => void;
  /** How long to watch /proc/stat for other work before starting. Default 500 ms. */
  readonly busySampleMs?: number;
}

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly node: string;
  readonly simd: string;
}

/** The result; the first eight fields are the benchmark's headline figures. */
export interface EngineBenchResult {
  readonly train_step_ms: number;
  readonly decode_b1_tok_s: number;
  readonly decode_b16_tok_s: number;
  readonly prefill_tok_s: number;
  readonly matmul_256_gflops_1t: number;
  readonly matmul_256_gflops_2t: number;
  readonly matmul_64x512x2048_gflops_1t: number;
  readonly matmul_64x512x2048_gflops_2t: number;
  readonly train_step_ms_min: number;
  readonly train_step_ms_max: number;
  /** Median process CPU time of one step: with 1 thread on a busy machine, near the idle wall time. */
  readonly train_step_cpu_ms: number;
  readonly prefill_b1_tok_s: number;
  readonly parameters: number;
  readonly threads: number;
  readonly model: { readonly hidden: number; readonly layers: number; readonly heads: number; readonly intermediate: number; readonly vocab: number; readonly batch: number; readonly context: number };
  readonly machine: MachineInfo;
  /** 1, 5 and 15 minute load averages when the bench started and ended. */
  readonly load_start: readonly number[];
  readonly load_end: readonly number[];
  /** Share of all cores' time (0-1) other work used just before the bench; null where unmeasurable. */
  readonly busy_start: number | null;
  /** The kernels measured: 'native' or 'wasm' (machine.simd names the instruction set). */
  readonly backend: 'native' | 'wasm';
  /** One entry per thread count of threadLadder(threads). */
  readonly scaling: readonly ScalingPoint[];
  /** Whether every thread count's training steps gave bit-identical losses (they must). */
  readonly scaling_losses_equal: boolean;
}

/** The engine at one thread count: training step (median) and matmul throughput. */
export interface ScalingPoint {
  readonly threads: number;
  readonly train_step_ms: number;
  readonly matmul_256_gflops: number;
  readonly matmul_64x512x2048_gflops: number;
}

/** Thread counts the scaling section measures: 1, 2, then powers of two below `threads`, and `threads`. */
export function threadLadder(threads: number): number[] {
  const ladder = [1, 2];
  for (let t = 4; t < threads; t *= 2) ladder.push(t);
  if (threads > 2) ladder.push(threads);
  return ladder;
}

const MATMUL_256: MatmulShape = { m: 256, k: 256, n: 256 };
const MATMUL_WIDE: MatmulShape = { m: 64, k: 512, n: 2048 };

/** CPU model name from /proc/cpuinfo (Linux), else what Node reports. */
export function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'));
    if (line !== undefined) return line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // not Linux: fall through
  }
  return os.cpus()[0]?.model ?? 'unknown CPU';
}

/**
 * A warning when other work competes for the cores: from a quarter of the machine's CPU time
 * busy (`busy`, measured from /proc/stat) on, or, where that is unmeasurable, a 1-minute
 * load average of half the cores. A second thread (and often the first) then shares its core.
 */
export function busyWarning(load1: number, cores: number, busy?: number | null): string | undefined {
  if (busy !== undefined && busy !== null) {
    if (busy < 0.25) return undefined;
    return `the machine is busy (other work used ${(100 * busy).toFixed(0)}% of ${cores} cores just before the bench): numbers are unreliable and low; rerun when it is idle`;
  }
  if (load1 < cores / 2) return undefined;
  return `the machine is busy (load average ${load1.toFixed(2)} on ${cores} cores): numbers are unreliable and low; rerun when the load is below ${(cores / 2).toFixed(1)}`;
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

/** Runs every measurement of the engine bench; see EngineBenchOptions for the knobs. */
export async function benchEngine(options: EngineBenchOptions = {}): Promise<EngineBenchResult> {
  const threads = checkThreads(options.threads ?? threadsFromEnv(), 'bench threads');
  const config = options.config ?? BENCH_MODEL;
  const batch = options.batch ?? 16;
  const context = options.context ?? 128;
  const steps = options.trainSteps ?? 5;
  const progress = options.progress ?? (() => {});
  const load_start = os.loadavg().map((x) => round(x, 2));
  const busy = await measureOtherCpuBusy(options.busySampleMs ?? 500);
  const busy_start = busy === undefined ? null : round(busy, 2);
  const backend = resolveBackend(options.backend ?? 'auto');
  const matmul = (kernels: Kernels, shape: MatmulShape): number =>
    round(measureMatmul(kernels, shape, { runs: options.matmulRuns ?? 5, minBatchMs: options.matmulMinBatchMs ?? 30 }).gflops, 2);
  // One thread count at a time (kernels of several counts at once would share the cores).
  const scaling: ScalingPoint[] = [];
  const losses: Array<readonly number[]> = [];
  let train: ReturnType<typeof timeTrainStep> | undefined;
  let sampling: ReturnType<typeof benchSampling> | undefined;
  let simd = '';
  for (const t of threadLadder(threads)) {
    const kernels = await createKernels({ backend, threads: t });
    try {
      progress(`${t} thread(s): matmul 256x256x256 and 64x512x2048, ${steps} timed training steps of batch ${batch} x context ${context}`);
      const matmul_256_gflops = matmul(kernels, MATMUL_256);
      const matmul_64x512x2048_gflops = matmul(kernels, MATMUL_WIDE);
      const timing = timeTrainStep({ kernels, config, batch, context, steps, warmup: 1 });
      scaling.push({ threads: t, train_step_ms: round(timing.medianMs, 1), matmul_256_gflops, matmul_64x512x2048_gflops });
      losses.push(timing.losses);
      simd = kernels.name;
      if (t === threads) {
        train = timing;
        progress(`sampling: decode at batch 1 and 16, prefill, ${threads} thread(s)`);
        sampling = benchSampling(kernels, { config, runs: options.samplingRuns ?? 3, decodeTokens: options.decodeTokens, prefillTokens: options.prefillTokens });
      }
    } finally {
      await (kernels as Kernels & { dispose?: () => Promise<void> }).dispose?.();
    }
  }
  invariant(train !== undefined && sampling !== undefined, 'the bench thread ladder includes the requested thread count');
  const at = (t: number): ScalingPoint => scaling.find((point) => point.threads === t)!;
  return {
    train_step_ms: round(train.medianMs, 1),
    decode_b1_tok_s: round(sampling.decode_b1_tok_s, 0),
    decode_b16_tok_s: round(sampling.decode_b16_tok_s, 0),
    prefill_tok_s: round(sampling.prefill_tok_s, 0),
    matmul_256_gflops_1t: at(1).matmul_256_gflops,
    matmul_256_gflops_2t: at(2).matmul_256_gflops,
    matmul_64x512x2048_gflops_1t: at(1).matmul_64x512x2048_gflops,
    matmul_64x512x2048_gflops_2t: at(2).matmul_64x512x2048_gflops,
    train_step_ms_min: round(Math.min(...train.timesMs), 1),
    train_step_ms_max: round(Math.max(...train.timesMs), 1),
    train_step_cpu_ms: round([...train.cpuMs].sort((a, b) => a - b)[Math.floor(train.cpuMs.length / 2)]!, 1),
    prefill_b1_tok_s: round(sampling.prefill_b1_tok_s, 0),
    parameters: train.parameters,
    threads,
    model: {
      hidden: config.hidden_size, layers: config.num_hidden_layers, heads: config.num_attention_heads,
      intermediate: config.intermediate_size, vocab: config.vocab_size, batch, context,
    },
    machine: { cpu: cpuModel(), cores: os.cpus().length, node: process.version, simd },
    load_start,
    load_end: os.loadavg().map((x) => round(x, 2)),
    busy_start,
    backend,
    scaling,
    scaling_losses_equal: losses.every((l) => l.length === losses[0]!.length && l.every((x, i) => Object.is(x, losses[0]![i]))),
  };
}

/** The human-readable report: machine, load, then one row per figure with its target. */
export function formatEngineBench(r: EngineBenchResult): string {
  const m = r.model;
  const rows: Array<[string, string, string, string, string]> = [
    ['training step (fwd + bwd + AdamW)', r.train_step_ms.toFixed(1), 'ms', `range ${r.train_step_ms_min.toFixed(0)}-${r.train_step_ms_max.toFixed(0)} ms, CPU ${r.train_step_cpu_ms.toFixed(0)} ms`, '<= 1.5x PyTorch CPU'],
    ['decode, batch 1 (KV cache)', String(r.decode_b1_tok_s), 'tok/s', '', '>= 1000 tok/s'],
    ['decode, batch 16 (shared prompt)', String(r.decode_b16_tok_s), 'tok/s', '', ''],
    ['prefill, 16 prompts', String(r.prefill_tok_s), 'tok/s', `1 prompt: ${r.prefill_b1_tok_s} tok/s`, ''],
    ['matmul 256x256x256, 1 thread', r.matmul_256_gflops_1t.toFixed(1), 'GFLOP/s', '', ''],
    ['matmul 256x256x256, 2 threads', r.matmul_256_gflops_2t.toFixed(1), 'GFLOP/s', '', '>= 30 GFLOP/s'],
    ['matmul 64x512x2048, 1 thread', r.matmul_64x512x2048_gflops_1t.toFixed(1), 'GFLOP/s', '', ''],
    ['matmul 64x512x2048, 2 threads', r.matmul_64x512x2048_gflops_2t.toFixed(1), 'GFLOP/s', '', ''],
  ];
  const width = [0, 1, 2, 3].map((c) => Math.max(...rows.map((row) => row[c]!.length)));
  const lines = [
    `model    Llama ${m.layers} layers, hidden ${m.hidden}, ${m.heads} heads, intermediate ${m.intermediate}, vocab ${m.vocab} (${(r.parameters / 1e6).toFixed(2)}M parameters); batch ${m.batch} x context ${m.context}; ${r.threads} thread(s)`,
    `machine  ${r.machine.cpu}, ${r.machine.cores} cores, Node ${r.machine.node}, ${r.machine.simd}`,
    `load     ${r.load_start.join(' ')} at the start, ${r.load_end.join(' ')} at the end (1/5/15 min)${r.busy_start === null ? '' : `; other work used ${(100 * r.busy_start).toFixed(0)}% of the CPU before the start`}`,
  ];
  const warning = busyWarning(r.load_start[0] ?? 0, r.machine.cores, r.busy_start);
  if (warning !== undefined) lines.push(`warning  ${warning}`);
  lines.push('');
  lines.push(`${'figure'.padEnd(width[0]!)}  ${'value'.padStart(width[1]!)} ${''.padEnd(width[2]!)}  ${'note'.padEnd(width[3]!)}  target`);
  for (const [name, value, unit, note, target] of rows) {
    lines.push(`${name.padEnd(width[0]!)}  ${value.padStart(width[1]!)} ${unit.padEnd(width[2]!)}  ${note.padEnd(width[3]!)}  ${target}`.trimEnd());
  }
  lines.push('', ...formatScaling(r));
  return `${lines.join('\n')}\n`;
}

/** The scaling table: per thread count, the step time, its speed-up over 1 thread, and matmul GFLOP/s. */
function formatScaling(r: EngineBenchResult): string[] {
  const base = r.scaling[0]!.train_step_ms;
  const lines = [`scaling  threads  training step        speed-up  matmul 256^3  matmul 64x512x2048`];
  for (const p of r.scaling) {
    const oversubscribed = p.threads > r.machine.cores ? `  (more threads than the ${r.machine.cores} cores)` : '';
    lines.push(`         ${String(p.threads).padStart(7)}  ${p.train_step_ms.toFixed(1).padStart(10)} ms  ${(base / p.train_step_ms).toFixed(2).padStart(8)}x  ${p.matmul_256_gflops.toFixed(1).padStart(6)} GFLOP/s  ${p.matmul_64x512x2048_gflops.toFixed(1).padStart(6)} GFLOP/s${oversubscribed}`);
  }
  lines.push(r.scaling_losses_equal ? '         every thread count computed bit-identical training losses' : '         WARNING: the thread counts computed different losses (a bug: please report it)');
  return lines;
}

export function benchCommand(): Command {
  const bench = new Command('bench').description('measure the speed of Troupe\'s parts');
  bench
    .command('engine')
    .description('training step, decoding, prefill and matmul speed of the embedded engine on the standard benchmark model')
    .option('--json', 'print one JSON object instead of a table', false)
    .option('--profile', 'instead: seconds and GFLOP/s by part (projections, attention, head, ...) of a train step and of an RL update, against the measured peak', false)
    .addOption(threadsOption('threads for training and sampling; scaling is measured from 1 up to it'))
    .addOption(backendOption())
    .action(async (opts: { json: boolean; profile: boolean; threads?: number; backend?: BackendName }) => {
      const threads = opts.threads ?? threadsFromEnv();
      if (opts.profile) {
        const kernels = await createKernels({ backend: resolveBackend(opts.backend ?? 'auto'), threads });
        process.stdout.write(profileEngine(kernels, (line) => process.stderr.write(`troupe bench: ${line}\n`)));
        await (kernels as { dispose?: () => Promise<void> }).dispose?.();
        return;
      }
      const result = await benchEngine({ threads, backend: opts.backend, progress: (line) => process.stderr.write(`troupe bench: ${line}\n`) });
      const warning = busyWarning(result.load_start[0] ?? 0, result.machine.cores, result.busy_start);
      if (opts.json && warning !== undefined) process.stderr.write(`troupe bench: warning: ${warning}\n`);
      process.stdout.write(opts.json ? `${JSON.stringify(result)}\n` : formatEngineBench(result));
    });
  bench
    .command('model')
    .argument('<model>', 'a model folder or a hub id (Org/Name), e.g. a Qwen3-0.6B checkpoint')
    .description('decode (batch 1 and 16), prefill, LoRA training speed and peak memory of a real checkpoint (docs/performance.md)')
    .option('--json', 'print one JSON object instead of lines', false)
    .addOption(threadsOption('threads'))
    .addOption(backendOption())
    .action(async (model: string, opts: { json: boolean; threads?: number; backend?: BackendName }) => {
      const threads = opts.threads ?? threadsFromEnv();
      const result = await benchModel(model, { threads, backend: opts.backend, progress: (line) => process.stderr.write(`troupe bench: ${line}\n`) });
      process.stdout.write(opts.json ? `${JSON.stringify(result)}\n` : `${Object.entries(result).map(([k, v]) => `${k.padEnd(17)} ${String(v)}`).join('\n')}\n`);
    });
  bench
    .command('grpo-step')
    .argument('<model>', 'a model folder or a hub id (Org/Name), e.g. a Qwen3-0.6B-shaped checkpoint (bench/make-qwen3-shape.ts)')
    .description('time one single-agent GRPO step with LoRA: P prompts x K completions x N new tokens, then the update (bench/grpo-step-vs-trl.sh compares TRL)')
    .option('--prompts <n>', 'prompts P', '4')
    .option('--k <n>', 'completions per prompt K', '8')
    .option('--tokens <n>', 'new tokens per completion N', '64')
    .option('--lora-rank <n>', 'LoRA rank on all seven projections (alpha = 2 x rank)', '16')
    .option('--json', 'print one JSON object instead of lines', false)
    .option('--profile', 'also: CPU seconds and GFLOP/s by part of the rollout and of the update, against the measured peak', false)
    .addOption(threadsOption('threads'))
    .addOption(backendOption())
    .action(async (model: string, opts: { prompts: string; k: string; tokens: string; loraRank: string; json: boolean; profile: boolean; threads?: number; backend?: BackendName }) => {
      const result = await benchGrpoStep(model, {
        prompts: Number(opts.prompts),
        k: Number(opts.k),
        newTokens: Number(opts.tokens),
        loraRank: Number(opts.loraRank),
        threads: opts.threads ?? threadsFromEnv(),
        backend: opts.backend,
        profile: opts.profile,
        progress: (line) => process.stderr.write(`troupe bench: ${line}\n`),
      });
      const { profile, ...fields } = result;
      process.stdout.write(opts.json ? `${JSON.stringify(result)}\n` : `${Object.entries(fields).map(([k, v]) => `${k.padEnd(19)} ${String(v)}`).join('\n')}\n`);
      if (profile && !opts.json) process.stdout.write(`\nrollout (CPU time):\n${formatParts(profile.rollout, profile.peak_gflops)}\n\nupdate (CPU time):\n${formatParts(profile.update, profile.peak_gflops)}\n`);
    });
  return bench;
}
