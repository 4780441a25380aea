/**
 * `evaluate`: success on held-out tasks (the eval split, which training never sees), as
 * `troupe eval` measures it, for a run folder or a config.
 */
import { runEval, type EvalRunResult } from './run-eval.js';
import type { AnyTaskDefinition } from '../envs/task-catalog.js';
import { TroupeError } from '../util/errors.js';
import type { TroupeConfig } from '../config/troupe-config.js';

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
  /**
   * Stops the evaluation early. With a signal the tasks are played `rollout.tasks` at a time
   * (the config's batch); an abort lets the batch in flight finish, plays no other, and the
   * promise resolves with the score of the tasks played (`n` of them) and `interrupted: true`.
   * An abort before the call plays nothing (`n` 0). Never rejects because of the abort.
   */
  readonly signal?: AbortSignal;
  /**
   * Hears `still waiting for <op> request <id> from <url> (N min)` after each full minute one
   * request to a Tinker service is pending (policy.kind tinker). Nothing is printed without it.
   */
  readonly onWait?: (message: string) => void;
}

/**
 * What `evaluate` returns: the scores plus where the weights came from and the run's name.
 * camelCase like every API result; `troupe eval --json` and metrics.jsonl write the same
 * numbers in snake_case (`success_rate`, `ci_low`, ...).
 */
export interface EvaluateResult {
  readonly successRate: number;
  /** 95% Wilson score interval of the success rate. */
  readonly ciLow: number;
  readonly ciHigh: number;
  /** Held-out tasks played, one episode each. */
  readonly n: number;
  readonly meanTurns: number;
  /** Per role: mean reward (and its local and global parts) over the actions the episodes took. */
  readonly roles: Readonly<Record<string, { readonly reward: number; readonly local: number; readonly global: number }>>;
  readonly parseFailures: number;
  /** Completions the policy failed to generate (server down, timeout, ...). */
  readonly generationErrors: number;
  /** The first generation error's reason, so a broken backend is obvious. */
  readonly firstError?: string;
  /** Where the weights came from (a checkpoint folder, a model, a served endpoint). */
  readonly source: string;
  /** The run's name. */
  readonly name: string;
  /** True when `signal` stopped the evaluation before every task was played. */
  readonly interrupted: boolean;
}

function camelCased(result: EvalRunResult): EvaluateResult {
  return {
    successRate: result.success_rate,
    ciLow: result.ci_low,
    ciHigh: result.ci_high,
    n: result.n,
    meanTurns: result.mean_turns,
    roles: result.roles,
    parseFailures: result.parse_failures,
    generationErrors: result.generation_errors,
    ...(result.first_error === undefined ? {} : { firstError: result.first_error }),
    source: result.source,
    name: result.name,
    interrupted: result.interrupted === true,
  };
}

/**
 * Scores a team on held-out tasks: success rate with a 95% Wilson interval, mean turns,
 * per-role rewards, parse failures and generation errors. The event loop runs between
 * batches; aborting `signal` resolves with the batches played so far (`interrupted: true`).
 *
 * @example
 * ```ts
 * import { evaluate } from 'troupe';
 * const score = await evaluate({ run: 'runs/guess', tasks: [guess] });
 * console.log(score.successRate, score.ciLow, score.ciHigh, score.n);
 *
 * // At most a minute: whatever was scored by then, with its (wider) interval.
 * const quick = await evaluate({ run: 'runs/guess', tasks: [guess], count: 1000, signal: AbortSignal.timeout(60_000) });
 * if (quick.interrupted) console.log(`scored ${quick.n} of 1000 tasks`);
 * ```
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  if ((options.run === undefined) === (options.config === undefined)) {
    throw new TroupeError('input', 'evaluate: give exactly one of run (a run folder) or config (a config file or object)');
  }
  const result = await runEval({
    target: options.run ?? options.config!,
    ...(options.tasks === undefined ? {} : { definitions: options.tasks }),
    ...(options.set === undefined ? {} : { set: options.set }),
    ...(options.count === undefined ? {} : { tasks: options.count }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onWait === undefined ? {} : { onWait: options.onWait }),
  });
  return camelCased(result);
}
