/**
 * Optional group filter (SEEDS.md, AT-GRPO loss): a group whose scores all tie carries no
 * learning signal under a centred estimator, so training may drop it. A single-unit group
 * ties trivially and is dropped too. Reports how much it dropped, so the effect is visible.
 */
import { isTied } from './advantage-estimators.js';
import type { GroupUnits } from './group-units.js';

export interface ZeroVarianceFilterResult {
  readonly kept: GroupUnits[];
  readonly droppedGroups: number;
}

export function filterZeroVariance(groups: readonly GroupUnits[]): ZeroVarianceFilterResult {
  const kept = groups.filter((g) => !isTied(g.scores_U));
  return { kept, droppedGroups: groups.length - kept.length };
}
