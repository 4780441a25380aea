/**
 * Plays a Team on a batch of tasks and returns every sample with per-episode stats: the one
 * entry point for all sampling modes (see types.ts for the vocabulary). Each mode is one
 * function in the registry below; every result is checked against the group invariants
 * before it is returned.
 *
 * ```ts
 * const { samples, episodes } = await rollout({ team, source, tasks: [0, 1, 2, 3],
 *   policyFor: () => policy, options, seed: 1, step: 0 });
 * ```
 */
import type { Env } from '../envs/types.js';
import { TroupeError } from '../util/errors.js';
import { checkGroups } from './check-groups.js';
import { checkJointGroups } from './check-joint-groups.js';
import { independentRollout } from './independent-rollout.js';
import { jointRollout } from './joint-rollout.js';
import { treeRollout } from './tree-rollout.js';
import type { RolloutInput, RolloutMode, RolloutResult } from './types.js';

type Sampler = <E extends Env>(input: RolloutInput<E>) => Promise<RolloutResult>;

export const samplers: Record<RolloutMode, Sampler> = {
  tree: treeRollout,
  independent: independentRollout,
  joint: jointRollout,
};

export async function rollout<E extends Env>(input: RolloutInput<E>): Promise<RolloutResult> {
  const { k } = input.options;
  if (!Number.isInteger(k) || k < 1) {
    throw new TroupeError('config', `rollout.k: expected an integer >= 1, got ${k}`);
  }
  const seen = new Set<number>();
  for (const index of input.tasks) {
    if (seen.has(index)) {
      throw new TroupeError('input', `task index ${index} appears twice in one rollout; each task is one episode tree`);
    }
    seen.add(index);
  }
  const names = input.team.roles.map((r) => r.name);
  if (new Set(names).size !== names.length) {
    throw new TroupeError('invariant', `team ${input.team.name} has duplicate role names: ${names.join(', ')}`);
  }
  const result = await samplers[input.options.mode](input);
  if (input.options.mode === 'joint') checkJointGroups(result.samples, k);
  else checkGroups(result.samples, input.options.mode, k);
  return result;
}
