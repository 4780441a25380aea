/**
 * A rollout a host program can stop: the tasks are played `batch` at a time, and before each
 * batch the event loop runs and `signal` is read. An abort lets the batch in flight finish, so
 * every episode returned is whole (a half-played episode has no success and no return), and
 * plays no further batch. Request seeds derive from (seed, step, task, turn, role), and the
 * engine's results do not depend on the batch's composition, so the tasks played give the
 * same samples whatever `batch` is.
 *
 * ```ts
 * const { samples, played, interrupted } = await rolloutInBatches(input, { batch: 8, signal });
 * ```
 */
import type { Env } from '../envs/types.js';
import { TroupeError } from '../util/errors.js';
import { yieldToEventLoop } from '../util/yield-to-event-loop.js';
import { rollout } from './rollout.js';
import type { EpisodeStats, RolloutInput, RolloutResult, Sample } from './types.js';

export interface BatchedRolloutResult extends RolloutResult {
  /** How many of `input.tasks` were played (from the front of the list). */
  readonly played: number;
  /** True when the signal stopped the rollout before every task was played. */
  readonly interrupted: boolean;
}

export async function rolloutInBatches<E extends Env>(
  input: RolloutInput<E>,
  control: { readonly batch: number; readonly signal?: AbortSignal },
): Promise<BatchedRolloutResult> {
  if (!Number.isInteger(control.batch) || control.batch < 1) {
    throw new TroupeError('invariant', `rolloutInBatches: batch must be a whole number >= 1, got ${control.batch}`);
  }
  const samples: Sample[] = [];
  const episodes: EpisodeStats[] = [];
  let played = 0;
  while (played < input.tasks.length) {
    // The abort handler (and anything else of the host's) gets its turn before the next batch.
    await yieldToEventLoop();
    if (control.signal?.aborted) break;
    const tasks = input.tasks.slice(played, played + control.batch);
    const result = await rollout({ ...input, tasks });
    samples.push(...result.samples);
    episodes.push(...result.episodes);
    played += tasks.length;
  }
  return { samples, episodes, played, interrupted: played < input.tasks.length };
}
