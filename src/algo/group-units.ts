/**
 * Splits samples into advantage groups (by their `group` key) and, inside a group, into the
 * *units* the estimator compares. In a tree node every sample is its own unit (K branches of
 * one prompt). In an independent (task, role) group a unit is one episode: all of a role's
 * samples in that episode share the episode's return, so the K episodes are compared once each
 * (a longer episode does not count more often) and the advantage is broadcast to its samples.
 */
import { invariant } from '../util/errors.js';

/** The fields advantage computation reads from a sample. */
export interface ScoredSample {
  readonly group: string;
  readonly score: number;
  /** Present in independent mode: samples of one episode form one unit. */
  readonly episode?: number;
}

export interface GroupUnits {
  readonly group: string;
  /** One score per unit. */
  readonly scores_U: number[];
  /** For each unit, the indices (into the input array) of its samples. */
  readonly members_U: number[][];
}

export function groupUnits(samples: readonly ScoredSample[]): GroupUnits[] {
  const groups = new Map<string, { scores_U: number[]; members_U: number[][]; unitOf: Map<string, number> }>();
  samples.forEach((sample, index) => {
    let group = groups.get(sample.group);
    if (!group) {
      group = { scores_U: [], members_U: [], unitOf: new Map() };
      groups.set(sample.group, group);
    }
    const unitKey = sample.episode === undefined ? `s${index}` : `e${sample.episode}`;
    const unit = group.unitOf.get(unitKey);
    if (unit === undefined) {
      group.unitOf.set(unitKey, group.scores_U.length);
      group.scores_U.push(sample.score);
      group.members_U.push([index]);
    } else {
      invariant(
        group.scores_U[unit] === sample.score,
        `samples of episode ${sample.episode} in group ${sample.group} have different scores`,
      );
      group.members_U[unit]!.push(index);
    }
  });
  return [...groups].map(([group, { scores_U, members_U }]) => ({ group, scores_U, members_U }));
}
