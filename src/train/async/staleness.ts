/**
 * Staleness bookkeeping of asynchronous training (`train.max_steps_off_policy: s`), as pure
 * functions the trainer loop calls. Rollout and algo stay unaware of time: the loop tags each
 * sample with the version of the policy that produced it (`policy_version`: how many updates
 * that policy had received), and before an update measures how far behind each group is.
 *
 *   staleness(group) = version of its policy now - policy_version of its samples
 *
 * A group older than s versions is not trained on: `splitStale` takes its whole task out of the
 * batch (a tree group cannot be re-played without its episode), and the loop samples that task
 * again with the newest weights. The fixed schedule of schedule.ts never lets a group exceed s,
 * so this is the guard that makes "never trained on silently" a checked fact, not a hope.
 */
import type { Sample } from '../../rollout/types.js';
import { TroupeError } from '../../util/errors.js';

/** Policy id -> updates received so far. */
export type Versions = ReadonlyMap<string, number>;

/** How many updates behind the current weights a sample is; 0 for a sample with no version (on-policy). */
export function sampleStaleness(sample: Sample, versions: Versions): number {
  if (sample.policy_version === undefined) return 0;
  const now = versions.get(sample.policy);
  if (now === undefined) return 0; // not a trained policy (scripted, frozen by map): never stale
  return now - sample.policy_version;
}

/** The samples with `policy_version` set to their policy's current version. */
export function tagVersions(samples: readonly Sample[], versions: Versions): Sample[] {
  return samples.map((s) => ({ ...s, policy_version: versions.get(s.policy) ?? 0 }));
}

export interface StaleSplit {
  /** Samples of tasks whose every group is at most s versions old. */
  readonly fresh: Sample[];
  /** Task ids with a group older than s (to be sampled again). */
  readonly staleTasks: string[];
  /** Groups removed with those tasks. */
  readonly requeuedGroups: number;
}

/** Splits a rollout's samples into trainable ones and the tasks that became too stale. */
export function splitStale(samples: readonly Sample[], versions: Versions, maxStaleness: number): StaleSplit {
  const stale = new Set<string>();
  for (const s of samples) if (sampleStaleness(s, versions) > maxStaleness) stale.add(s.task_id);
  if (stale.size === 0) return { fresh: [...samples], staleTasks: [], requeuedGroups: 0 };
  const groups = new Set(samples.filter((s) => stale.has(s.task_id)).map((s) => s.group));
  return { fresh: samples.filter((s) => !stale.has(s.task_id)), staleTasks: [...stale], requeuedGroups: groups.size };
}

/** Groups per staleness (keys "0", "1", ...), each group counted once. */
export function stalenessHistogram(samples: readonly Sample[], versions: Versions): Record<string, number> {
  const byGroup = new Map<string, number>();
  for (const s of samples) byGroup.set(`${s.policy}\u0000${s.group}`, sampleStaleness(s, versions));
  const histogram: Record<string, number> = {};
  for (const age of [...byGroup.values()].sort((a, b) => a - b)) histogram[String(age)] = (histogram[String(age)] ?? 0) + 1;
  return histogram;
}

/** The check behind "no group older than s is trained": an invariant error naming the group. */
export function assertWithinStaleness(samples: readonly Sample[], versions: Versions, maxStaleness: number): void {
  for (const s of samples) {
    const age = sampleStaleness(s, versions);
    if (age > maxStaleness) {
      throw new TroupeError('invariant', `internal invariant broken: group ${s.group} of policy '${s.policy}' is ${age} updates old, more than train.max_steps_off_policy = ${maxStaleness}, and was about to be trained on`);
    }
  }
}
