/**
 * `rollout`: play a team on a batch of tasks without training, as `troupe rollout` does, and
 * return every sample (prompt, completion, rewards, advantage).
 */
import { runRollout, type RolloutRunResult } from './run-rollout.js';
import type { AnyTaskDefinition } from '../envs/task-catalog.js';
import type { TroupeConfig } from '../config/troupe-config.js';

export interface RolloutOptions {
  /** A config file or the config as an object (policy.kind scripted, embedded, openai, ...). */
  readonly config: string | TroupeConfig;
  /** Task definitions (defineTask) the config plays. */
  readonly tasks?: readonly AnyTaskDefinition[];
  /** `key=value` overrides, as `--set` takes them. */
  readonly set?: readonly string[];
  /** Number of training-split tasks to play (default the config's rollout.tasks). */
  readonly count?: number;
  /** Also write the samples as JSON lines to this file. */
  readonly out?: string;
  /**
   * Stops the rollout early. With a signal the tasks are played `rollout.tasks` at a time (the
   * config's batch); an abort lets the batch in flight finish, plays no other, and the promise
   * resolves with the samples of the tasks played and `interrupted: true` (`out` holds those).
   * Never rejects because of the abort.
   */
  readonly signal?: AbortSignal;
  /**
   * Hears `still waiting for <op> request <id> from <url> (N min)` after each full minute one
   * request to a Tinker service is pending (policy.kind tinker). Nothing is printed without it.
   */
  readonly onWait?: (message: string) => void;
}

export type RolloutResult = RolloutRunResult;

/**
 * Plays tasks with the config's sampling mode and policies; the same config and seed give the
 * same samples (with a signal, the tasks played give the same samples as without). The event
 * loop runs between batches; aborting `signal` resolves with the batches played so far.
 *
 * @example
 * ```ts
 * import { rollout } from 'troupe';
 * const { samples, summary } = await rollout({ config: { tasks: { name: 'guess' }, policy: { kind: 'scripted', skill: 1 } }, tasks: [guess], count: 4 });
 * console.log(summary.successRate, samples[0]?.prompt);
 * ```
 */
export function rollout(options: RolloutOptions): Promise<RolloutResult> {
  return runRollout({
    config: options.config,
    print: () => undefined,
    ...(options.tasks === undefined ? {} : { definitions: options.tasks }),
    ...(options.set === undefined ? {} : { set: options.set }),
    ...(options.count === undefined ? {} : { tasks: options.count }),
    ...(options.out === undefined ? {} : { out: options.out }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onWait === undefined ? {} : { onWait: options.onWait }),
  });
}
