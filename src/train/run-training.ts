/**
 * `troupe train`: one training run from a config to a finished run folder.
 *
 *   runs/<name>/config.yaml      the resolved config
 *   runs/<name>/base/            the warm-started base model (cached)
 *   runs/<name>/metrics.jsonl    warm-start, train and eval records
 *   runs/<name>/rollouts/        sample rollouts (step-N.jsonl)
 *   runs/<name>/checkpoints/     resumable checkpoints (the newest `keep`)
 *   runs/<name>/report.html      plots of all of it
 *
 * Every random choice derives from (seed, step), and the engine is deterministic for a
 * thread count, so `--resume` from a checkpoint replays the remaining steps exactly; an
 * asynchronous run's checkpoint also holds the rollouts in flight (async/step-pipeline.ts).
 * Aborting `signal` (the CLI aborts it on Ctrl-C) finishes the current step, saves a checkpoint
 * and resolves with `interrupted: true`. During the warm start it stops after the current
 * supervised step: a warm start is not checkpointed, so a run folder this process made is
 * removed (as it is when the setup fails), and an older one is left as --resume finds it.
 * Nothing here touches the process (signals, exit codes): that is the CLI's (src/cli/).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { PhaseProgress, watchPolicySet } from './progress/phase-progress.js';
import { writeFileAtomic } from '../engine/io/atomic-write.js';
import { cosineLr } from '../engine/optim/cosine-schedule.js';
import { readConfig, readRunConfig } from '../config/read-config.js';
import { peakLearningRate } from '../config/lora-lr.js';
import type { ResolvedConfig } from '../config/resolve-config.js';
import type { ConfigOverrides, TroupeConfig } from '../config/troupe-config.js';
import { UnknownCharacterReport } from '../policy/unknown-characters.js';
import { sampleToJson } from '../rollout/sample-json.js';
import type { AnyTaskDefinition } from '../envs/task-catalog.js';
import { TinkerUnreachableError } from '../tinker/tinker-unreachable-error.js';
import { TroupeError } from '../util/errors.js';
import type { EvalRecord, TrainRecord } from './metrics/types.js';
import { MetricsWriter } from './metrics/metrics-writer.js';
import { truncateMetrics } from './metrics/truncate-metrics.js';
import { ProgressDisplay, type ProgressStream } from './progress/progress-display.js';
import { progressFromTrain, progressFromWarmStart } from './progress/progress-from-records.js';
import { writeReport } from './report/write-report.js';
import { listCheckpoints, saveTrainingCheckpoint } from './checkpoint-store.js';
import { checkSameEngine, loadNewestIntactCheckpoint, removeInterruptedWrites, removeUnfinishedCheckpoints } from './resume-checkpoint.js';
import { evaluate } from './evaluate.js';
import { checkTrainable, setupRun, type RunSetup } from './setup-run.js';
import { PIPELINE_FILE, pipelineFileText, pipelineToResume } from './async/pipeline-file.js';
import { StepPipeline } from './async/step-pipeline.js';
import { startRolloutWorker } from './async/rollout-worker.js';
import { WarmStartInterrupted } from './warm-start.js';
import { yieldToEventLoop } from '../util/yield-to-event-loop.js';

export interface TrainOptions {
  /** A config file, or the config as an object. */
  readonly config: string | TroupeConfig;
  readonly set?: readonly string[];
  /** Typed overrides, applied after `set`. */
  readonly overrides?: ConfigOverrides;
  /** Task definitions from code (defineTask), playable by name in the config. */
  readonly tasks?: readonly AnyTaskDefinition[];
  readonly runDir?: string;
  readonly resume?: boolean;
  /** Progress and messages (default process.stderr). */
  readonly stream?: ProgressStream;
  /** Continue a run on other kernels than its checkpoint's (a warning instead of a refusal). */
  readonly allowEngineChange?: boolean;
  /** For tests: stop (as if interrupted) after this many RL steps of this process. */
  readonly stopAfterSteps?: number;
  /** Aborted: finish the current step (or warm-start step), save, resolve with `interrupted: true`. */
  readonly signal?: AbortSignal;
  /**
   * Told the run folder this call made while nothing in it can be resumed yet (the setup and
   * warm start), and `undefined` once it holds a run: what a caller that ends the process at
   * once (a second Ctrl-C) should remove.
   */
  readonly onUnkeptFolder?: (runDir: string | undefined) => void;
  /** Each train record as it is written to metrics.jsonl (see train/metrics/types.ts). */
  readonly onStep?: (record: TrainRecord) => void;
  /** Each eval record as it is written to metrics.jsonl (step -1: the base, before RL). */
  readonly onEval?: (record: EvalRecord) => void;
  /** Each checkpoint once it is complete on disk. */
  readonly onCheckpoint?: (checkpoint: CheckpointEvent) => void;
}

/** A checkpoint saved by a run: the step it holds and its folder. */
export interface CheckpointEvent {
  readonly step: number;
  readonly path: string;
}

export interface TrainResult {
  readonly runDir: string;
  readonly lastStep: number;
  readonly finalEval?: EvalRecord;
  readonly interrupted: boolean;
}

/**
 * The resolved config as it is saved in the run folder, so that loading it again gives the
 * same run: sections that only apply to another algorithm are left out (they are errors there).
 */
export function roundTripConfig(config: ResolvedConfig): Record<string, unknown> {
  const { magrpo, ...rest } = config as ResolvedConfig & { magrpo?: unknown };
  return config.algorithm === 'magrpo' ? { ...rest, magrpo } : rest;
}

/**
 * A resumed run must continue with the config it started with, or it would not replay exactly.
 * The one exception: `train.steps` may grow, to extend a run (finished or not). The steps done
 * keep their learning rates; the rest follow the cosine schedule of the new total (the rate
 * at step s is the new curve's value at s, so a finished run's rate rises again from its end).
 */
async function checkSameRun(runDir: string, config: ResolvedConfig, tasks: readonly AnyTaskDefinition[]): Promise<void> {
  const savedPath = join(runDir, 'config.yaml');
  if (!existsSync(savedPath)) return;
  // Compared resolved, so that a key the run's file spells out but that does nothing in its
  // combination (an older version's default) is no difference; a file that no longer resolves
  // is compared as written, which names what changed.
  let saved: unknown;
  try {
    saved = roundTripConfig(await readRunConfig(runDir, { tasks }));
  } catch {
    saved = YAML.parse(readFileSync(savedPath, 'utf8')) as unknown;
  }
  const now = roundTripConfig(config);
  const differences: string[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) walk((a as any)[key], (b as any)[key], path ? `${path}.${key}` : key);
    } else if (path === 'train.steps' && typeof a === 'number' && typeof b === 'number' && b >= a) {
      return; // extending the run
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      const growOnly = path === 'train.steps' ? ' (train.steps may only grow on --resume)' : '';
      differences.push(`${path}: the run has ${JSON.stringify(a)}, the config now says ${JSON.stringify(b)}${growOnly}`);
    }
  };
  walk(saved, now, '');
  if (differences.length > 0) {
    throw new TroupeError('config', `--resume continues a run with the config it started with, but ${differences.join('; ')}. Resume without changes, or start a new run (model.path can point at a checkpoint's policy folder)`);
  }
}

export function defaultRunDir(config: ResolvedConfig): string {
  return join('runs', config.name);
}

export async function runTraining(options: TrainOptions): Promise<TrainResult> {
  const config = await readConfig({ config: options.config, set: options.set ?? [], tasks: options.tasks ?? [], ...(options.overrides === undefined ? {} : { overrides: options.overrides }) });
  const configPath = typeof options.config === 'string' ? options.config : 'CONFIG';
  const runDir = options.runDir ?? defaultRunDir(config);
  const metricsPath = join(runDir, 'metrics.jsonl');
  const stream = options.stream ?? process.stderr;
  const log = (message: string) => stream.write(`${message}\n`);
  if (existsSync(metricsPath) && !options.resume) {
    throw new TroupeError('config', `${runDir} already holds a run; continue it with --resume, or choose another folder with --run-dir`);
  }
  if (options.resume) await checkSameRun(runDir, config, options.tasks ?? []);
  checkTrainable(config);
  const fresh = !existsSync(runDir);
  const unfinished = removeUnfinishedCheckpoints(runDir);
  if (unfinished.length > 0) log(`removed ${unfinished.length} unfinished checkpoint folder(s) an interrupted save left (${unfinished.join(', ')})`);
  const interrupted = removeInterruptedWrites(runDir);
  if (interrupted.length > 0) log(`removed ${interrupted.length} temporary file(s) an interrupted write left (${interrupted.join(', ')})`);
  mkdirSync(runDir, { recursive: true });
  writeFileAtomic(join(runDir, 'config.yaml'), YAML.stringify(roundTripConfig(config)));
  if (options.resume && existsSync(metricsPath) && listCheckpoints(runDir).length === 0) {
    // Stopped before the first checkpoint: RL starts over; the warm-start records stay only
    // when the base they describe was finished and cached.
    const baseDone = existsSync(join(runDir, 'base', 'warm-start.json'));
    truncateMetrics(metricsPath, baseDone ? -2 : -1, baseDone ? 'rl' : 'warm-start');
  }
  const metrics = new MetricsWriter(metricsPath);
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;

  let warmProgress: ProgressDisplay | undefined;
  const signal = options.signal;
  const removeIfFresh = () => fresh && rmSync(runDir, { recursive: true, force: true });
  const onSetupAbort = () => log('\nstopping the warm start after this step (nothing of it is kept)');
  signal?.addEventListener('abort', onSetupAbort, { once: true });
  if (fresh) options.onUnkeptFolder?.(runDir);
  let setup: RunSetup;
  try {
    setup = await setupRun(config, runDir, {
      log,
      shouldStop: () => signal?.aborted ?? false,
      onWarmStartStep: (s) => {
        const record = { kind: 'warm-start' as const, step: s.step, loss: s.loss, tokens: s.tokens, lr: s.lr, elapsed_s: elapsed() };
        metrics.write(record);
        warmProgress ??= new ProgressDisplay({ stream, total: s.steps, label: 'warm-start' });
        warmProgress.update(progressFromWarmStart(record));
        if (s.step === s.steps - 1) warmProgress.finish();
      },
    });
  } catch (error) {
    // Nothing resumable was made yet: a folder this process created goes (no half-made run).
    removeIfFresh();
    if (!(error instanceof WarmStartInterrupted)) throw error;
    const kept = fresh
      ? `a warm start is not checkpointed, so nothing was kept (${runDir} was removed); start again with: troupe train ${configPath}${options.runDir ? ` --run-dir ${runDir}` : ''}`
      : `the base model was not saved and ${runDir} keeps what it had; continue with: troupe train ${configPath} --resume --run-dir ${runDir}`;
    log(`stopped during the warm start, after ${error.step} of ${error.steps} steps; ${kept}`);
    return { runDir, lastStep: -1, interrupted: true };
  } finally {
    signal?.removeEventListener('abort', onSetupAbort);
  }
  options.onUnkeptFolder?.(undefined);
  try {
    return await trainLoop(config, setup, { runDir, metrics, metricsPath, log, stream, elapsed, resume: options.resume ?? false, allowEngineChange: options.allowEngineChange ?? false, stopAfterSteps: options.stopAfterSteps, configPath, signal, onStep: options.onStep, onEval: options.onEval, onCheckpoint: options.onCheckpoint });
  } catch (error) {
    if (!(error instanceof TinkerUnreachableError)) throw error;
    // The service went away mid-run: everything written so far stays; say how to go on.
    const newest = listCheckpoints(runDir).at(-1);
    const kept = newest === undefined ? 'no checkpoint yet, so --resume starts the RL steps over' : `the newest checkpoint is step ${newest.step}`;
    throw new TroupeError('policy', `${error.message}. The run folder keeps every record and checkpoint written (${kept}); once the service is back, continue with: troupe train ${configPath} --resume --run-dir ${runDir}`, { cause: error });
  } finally {
    setup.dispose();
  }
}

interface TrainLoopContext {
  runDir: string;
  metrics: MetricsWriter;
  metricsPath: string;
  log: (m: string) => void;
  stream: ProgressStream;
  elapsed: () => number;
  resume: boolean;
  allowEngineChange: boolean;
  stopAfterSteps?: number;
  configPath: string;
  signal?: AbortSignal;
  onStep?: (record: TrainRecord) => void;
  onEval?: (record: EvalRecord) => void;
  onCheckpoint?: (checkpoint: CheckpointEvent) => void;
}

async function trainLoop(config: ResolvedConfig, setup: RunSetup, ctx: TrainLoopContext): Promise<TrainResult> {
  const latest = ctx.resume ? await loadNewestIntactCheckpoint(ctx.runDir, setup.policies, ctx.log) : undefined;
  // Lines during the base evaluation, a step's sampling and an update when they take long (big models).
  const phases = new PhaseProgress({ log: ctx.log });
  const policies = watchPolicySet(setup.stepInput.policies, phases);
  const sampler = await startRolloutWorker(config, setup.policies, ctx.log);
  const t = config.train;
  // The thread's rollout reports into the step's lines too (it may outlast the update beside it).
  const ahead = sampler && { syncWeights: () => sampler.syncWeights(), rollout: (step: number) => sampler.rollout(step, (n) => phases.tick(`sampling step ${step + 1} on the sampling thread, ${n} completions so far`)) };
  const pipeline = new StepPipeline({ base: { ...setup.stepInput, policies, seed: config.seed }, maxOffPolicy: t.max_steps_off_policy, steps: t.steps, ...(ahead ? { sampler: ahead } : {}) });
  try {
    return await runSteps(config, setup, ctx, pipeline, phases, latest);
  } finally {
    await sampler?.close();
  }
}

async function runSteps(
  config: ResolvedConfig,
  setup: RunSetup,
  ctx: TrainLoopContext,
  pipeline: StepPipeline,
  phases: PhaseProgress,
  latest: Awaited<ReturnType<typeof loadNewestIntactCheckpoint>>,
): Promise<TrainResult> {
  const t = config.train;
  const peak = peakLearningRate(config);
  if (peak.rule !== undefined) ctx.log(`LoRA learning rate ${peak.lr} (${peak.rule}; set train.lora_lr to choose it)`);
  let first = 0;
  if (latest) {
    checkSameEngine(latest, setup.engine, ctx.allowEngineChange, ctx.log);
    const inFlight = pipelineToResume(latest.dir, latest.pipeline, t.max_steps_off_policy);
    if (inFlight) pipeline.restore(inFlight);
    truncateMetrics(ctx.metricsPath, latest.step);
    first = latest.step + 1;
    ctx.log(`resuming after step ${latest.step} from ${latest.dir}`);
  }

  const runEval = async (step: number): Promise<EvalRecord> => {
    phases.begin(step < 0 ? 'base evaluation' : `evaluation after step ${step + 1}`);
    const result = await evaluate({ ...setup.evalInput, policyFor: phases.watch(setup.evalInput.policyFor), tasks: t.eval_tasks, temperature: t.eval_temperature, seed: config.seed });
    const record: EvalRecord = { kind: 'eval', step, split: 'eval', ...result, elapsed_s: ctx.elapsed() };
    ctx.metrics.write(record);
    ctx.onEval?.(record);
    return record;
  };
  let lastEval: EvalRecord | undefined = first === 0 ? await runEval(-1) : undefined;
  if (lastEval) ctx.log(`base policy: held-out success ${(100 * lastEval.success_rate!).toFixed(1)}% (n=${lastEval.n})`);

  let stopNow = false;
  const onAbort = () => ctx.log('\nstopping after this step (a checkpoint will be saved)');
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  const progress = new ProgressDisplay({ stream: ctx.stream, total: t.steps, startAt: first });
  const unknownChars = new UnknownCharacterReport(setup.tokenizer, ctx.log);
  let step = first;
  try {
    for (; step < t.steps; step++) {
      const lr = cosineLr({ step, warmupSteps: t.warmup_steps, totalSteps: t.steps, maxLr: peak.lr, minLr: peak.lr * t.min_lr_ratio });
      phases.begin(`step ${step + 1}/${t.steps}`);
      const { record, samples } = await pipeline.step(step, lr);
      const written = { ...record, elapsed_s: ctx.elapsed() };
      ctx.metrics.write(written);
      ctx.onStep?.(written);
      unknownChars.check(samples);
      const last = step === t.steps - 1;
      const every = (n: number) => n > 0 && (step + 1) % n === 0;
      if (every(t.samples_every) || (last && t.samples_every > 0)) {
        writeFileAtomic(join(ctx.runDir, 'rollouts', `step-${String(step).padStart(6, '0')}.jsonl`), samples.map((s) => sampleToJson(s)).join('\n') + '\n');
      }
      if (every(t.eval_every) || last) lastEval = await runEval(step);
      // A step itself never yields to the event loop: let the host's I/O (a server in the same
      // process, an abort from a signal handler) run between steps.
      await yieldToEventLoop();
      const interrupted = ctx.signal?.aborted ?? false;
      stopNow = interrupted || (ctx.stopAfterSteps !== undefined && step - first + 1 >= ctx.stopAfterSteps);
      if (every(t.checkpoint_every) || last || stopNow) {
        const inFlight = pipeline.state();
        const path = await saveTrainingCheckpoint(ctx.runDir, step, setup.policies, setup.tokenizer, t.keep_checkpoints, { modelPath: config.model.path, engine: setup.engine, files: inFlight ? { [PIPELINE_FILE]: pipelineFileText(inFlight) } : {} });
        ctx.onCheckpoint?.({ step, path });
      }
      progress.update(progressFromTrain(record, lastEval));
      if (stopNow) break;
    }
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
  }
  const reportPath = writeReport(ctx.runDir);
  const lastStep = stopNow ? step : t.steps - 1;
  progress.finish({
    ...(stopNow ? { stopped: ctx.signal?.aborted ? stopReason(ctx.signal) : 'stopped as asked' } : {}),
    ...(lastEval ? { eval: { success: lastEval.success_rate, ciLow: lastEval.ci_low, ciHigh: lastEval.ci_high, n: lastEval.n } } : {}),
  });
  ctx.log(stopNow ? `stopped after step ${lastStep}; continue with: troupe train ${ctx.configPath} --resume --run-dir ${ctx.runDir}` : `report: ${reportPath}`);
  return { runDir: ctx.runDir, lastStep, finalEval: lastEval, interrupted: stopNow };
}

/** The progress summary's words for an abort: its reason when a string ('Ctrl-C'), else 'aborted'. */
function stopReason(signal: AbortSignal): string {
  return `stopped by ${typeof signal.reason === 'string' ? signal.reason : 'abort'}`;
}
