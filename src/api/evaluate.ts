/**
 * `evaluate`: success on held-out tasks (the eval split, which training never sees), as
 * `troupe eval` measures it, for a run folder or a config.
 */
import { runEval } from './run-eval.js';
import type { AnyTaskDefinition } from '../envs/task-catalog.js';
import type { EvalResult } from '../train/evaluate.js';
import { TroupeError } from '../util/errors.js';
import type { TroupeConfig } from '../config/troupe-config.js';

export type { EvalResult };

export interface EvaluateOptions {
  /** A run folder: its saved config and newest checkpoint. */
  readonly run?: string;
  /** Or a config file / object (e.g. a scripted player, a served model, `model.path`). */
  readonly config?: string | TroupeConfig;
  /** Task definitions (defineTask) the config or run plays. */
  readonly tasks?: readonly AnyTaskDefinition[];
  /** `key=value` overrides, as `--set` takes them. */
  readonly set?: readonly string[];
  /** Number of held-out tasks (default the config's train.eval_tasks). */
  readonly count?: number;
}

/** What `evaluate` returns: the scores plus where the weights came from and the run's name. */
export type EvaluateResult = EvalResult & { readonly source: string; readonly name: string };

/**
 * Scores a team on held-out tasks: success rate with a 95% Wilson interval, mean turns,
 * per-role rewards, parse failures and generation errors.
 *
 * @example
 * ```ts
 * import { evaluate } from 'troupe';
 * const score = await evaluate({ run: 'runs/guess', tasks: [guess] });
 * console.log(score.success_rate, score.ci_low, score.ci_high, score.n);
 * ```
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  if ((options.run === undefined) === (options.config === undefined)) {
    throw new TroupeError('input', 'evaluate: give exactly one of run (a run folder) or config (a config file or object)');
  }
  return runEval({
    target: options.run ?? options.config!,
    ...(options.tasks === undefined ? {} : { definitions: options.tasks }),
    ...(options.set === undefined ? {} : { set: options.set }),
    ...(options.count === undefined ? {} : { tasks: options.count }),
  });
}
