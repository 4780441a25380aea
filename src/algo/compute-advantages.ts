/**
 * Fills `advantage` on every sample from its group (see group-units.ts for what a group and a
 * unit are) with the chosen estimator, optionally dropping zero-variance groups first.
 * Pure: returns new sample objects in the input order; the input is not modified.
 */
import { estimators, type EstimatorName, type EstimatorOptions } from './advantage-estimators.js';
import { filterZeroVariance } from './filter-zero-variance.js';
import { groupUnits, type ScoredSample } from './group-units.js';

/** The estimator's settings (advantage.std_floor: `stdFloor`), and the filter's. */
export interface AdvantageOptions extends EstimatorOptions {
  /** Drop groups whose scores all tie (and their samples). Default false. */
  readonly filterZeroVariance?: boolean;
}

export interface AdvantageResult<S> {
  /** The kept samples, input order, with `advantage` set. */
  readonly samples: S[];
  /** Number of groups before filtering. */
  readonly groups: number;
  readonly droppedGroups: number;
  readonly droppedSamples: number;
}

export function computeAdvantages<S extends ScoredSample & { advantage: number }>(
  samples: readonly S[],
  estimator: EstimatorName,
  options: AdvantageOptions = {},
): AdvantageResult<S> {
  const all = groupUnits(samples);
  const { kept, droppedGroups } = options.filterZeroVariance
    ? filterZeroVariance(all)
    : { kept: all, droppedGroups: 0 };
  const advantageOf = new Map<number, number>();
  for (const group of kept) {
    const advantages_U = estimators[estimator](group.scores_U, options);
    group.members_U.forEach((members, unit) => {
      for (const index of members) advantageOf.set(index, advantages_U[unit]!);
    });
  }
  const out: S[] = [];
  samples.forEach((sample, index) => {
    const advantage = advantageOf.get(index);
    if (advantage !== undefined) out.push({ ...sample, advantage });
  });
  return { samples: out, groups: all.length, droppedGroups, droppedSamples: samples.length - out.length };
}
