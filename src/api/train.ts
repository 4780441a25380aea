/**
 * `train`: one training run, from a config (file or object) and the user's tasks to a run
 * folder, as `troupe train` does it.
 */
import type { AnyTaskDefinition } from '../envs/registry.js';
import type { ProgressStream } from '../train/progress/progress-display.js';
import { runTraining, type TrainResult } from '../train/run-training.js';

export type { TrainResult };

export interface TrainOptions {
  /** A config file (YAML or JSON; `tasks.module` is relative to it), or the config as an object. */
  readonly config: string | Readonly<Record<string, unknown>>;
  /** Task definitions (defineTask); with one task and no `tasks:` section, the config plays it. */
  readonly tasks?: readonly AnyTaskDefinition[];
  /** The run folder (default `runs/<config name>`). It must not hold a run unless `resume`. */
  readonly runDir?: string;
  /** `key=value` overrides, as `--set` takes them, e.g. `['train.steps=20']`. */
  readonly set?: readonly string[];
  /** Continue the run in `runDir` from its newest checkpoint. */
  readonly resume?: boolean;
  /** Where the progress line and messages go (default process.stderr); `false` for silence. */
  readonly progress?: ProgressStream | false;
}

/**
 * Trains a team: warm start, RL steps, evaluations and checkpoints in the run folder. Ctrl-C
 * stops after the current step with a checkpoint (`interrupted: true`).
 *
 * @example
 * ```ts
 * import { train } from 'troupe';
 * import guess from './guess.mjs';
 * const run = await train({ config: { tasks: { name: 'guess' }, train: { steps: 40 } }, tasks: [guess], runDir: 'runs/guess' });
 * console.log(run.finalEval?.success_rate);
 * ```
 */
export function train(options: TrainOptions): Promise<TrainResult> {
  const silent: ProgressStream = { write: () => true };
  return runTraining({
    config: options.config,
    ...(options.set === undefined ? {} : { set: options.set }),
    ...(options.tasks === undefined ? {} : { tasks: options.tasks }),
    ...(options.runDir === undefined ? {} : { runDir: options.runDir }),
    ...(options.resume === undefined ? {} : { resume: options.resume }),
    ...(options.progress === undefined ? {} : { stream: options.progress === false ? silent : options.progress }),
  });
}
