/**
 * `train`: one training run, from a config (file or object) and the user's tasks to a run
 * folder, as `troupe train` does it.
 */
import type { AnyTaskDefinition } from '../envs/task-catalog.js';
import type { ProgressStream } from '../train/progress/progress-display.js';
import type { ConfigOverrides, TroupeConfig } from '../config/troupe-config.js';
import type { EvalRecord, TrainRecord } from '../train/metrics/types.js';
import { runTraining, type CheckpointEvent, type TrainResult } from '../train/run-training.js';

export type { CheckpointEvent, TrainResult };

export interface TrainOptions {
  /** A config file (YAML or JSON; `tasks.module` is relative to it), or the config as an object. */
  readonly config: string | TroupeConfig;
  /** Task definitions (defineTask); with one task and no `tasks:` section, the config plays it. */
  readonly tasks?: readonly AnyTaskDefinition[];
  /** The run folder (default `runs/<config name>`). It must not hold a run unless `resume`. */
  readonly runDir?: string;
  /** `key=value` overrides, as `--set` takes them, e.g. `['train.steps=20']`. */
  readonly set?: readonly string[];
  /** Typed overrides by section, applied after `set`, e.g. `{ train: { steps: 20 } }`. */
  readonly overrides?: ConfigOverrides;
  /** Continue the run in `runDir` from its newest checkpoint. */
  readonly resume?: boolean;
  /** Where the progress line and messages go (default process.stderr); `false` for silence. */
  readonly progress?: ProgressStream | false;
  /**
   * Stops the run: the current step finishes, a checkpoint is saved, and the promise resolves
   * with `interrupted: true` (`resume: true` continues it). During the warm start, it stops
   * after the current supervised step and keeps nothing of it. Never ends the process.
   */
  readonly signal?: AbortSignal;
  /** Called with each step's record as it is appended to metrics.jsonl (snake_case, as on disk). */
  readonly onStep?: (record: TrainRecord) => void;
  /** Called with each evaluation's record as it is appended to metrics.jsonl (step -1: the warm-started base). */
  readonly onEval?: (record: EvalRecord) => void;
  /** Called when a checkpoint is complete on disk, with its step and folder. */
  readonly onCheckpoint?: (checkpoint: CheckpointEvent) => void;
}

/**
 * Trains a team: warm start, RL steps, evaluations and checkpoints in the run folder. Between
 * steps the event loop runs, so a server or timer in the same process keeps answering; aborting
 * `signal` stops after the current step with a checkpoint (`interrupted: true`). The library
 * installs no signal handlers: wire Ctrl-C to an AbortController if you want it.
 *
 * @example
 * ```ts
 * import { train } from 'troupe';
 * import guess from './guess.mjs';
 * const run = await train({ config: { tasks: { name: 'guess' }, train: { steps: 40 } }, tasks: [guess], runDir: 'runs/guess' });
 * console.log(run.finalEval?.success_rate);
 *
 * // Stop from your own code (here: after 30 s); the run saves a checkpoint and resolves.
 * const stopped = await train({ config: 'run.yaml', tasks: [guess], signal: AbortSignal.timeout(30_000) });
 * if (stopped.interrupted) console.log(`stopped after step ${stopped.lastStep}`);
 * ```
 */
export function train(options: TrainOptions): Promise<TrainResult> {
  const silent: ProgressStream = { write: () => true };
  return runTraining({
    config: options.config,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onStep === undefined ? {} : { onStep: options.onStep }),
    ...(options.onEval === undefined ? {} : { onEval: options.onEval }),
    ...(options.onCheckpoint === undefined ? {} : { onCheckpoint: options.onCheckpoint }),
    ...(options.set === undefined ? {} : { set: options.set }),
    ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
    ...(options.tasks === undefined ? {} : { tasks: options.tasks }),
    ...(options.runDir === undefined ? {} : { runDir: options.runDir }),
    ...(options.resume === undefined ? {} : { resume: options.resume }),
    ...(options.progress === undefined ? {} : { stream: options.progress === false ? silent : options.progress }),
  });
}
