/**
 * Asserts the group invariants of DESIGN.md (3) on a finished rollout, so a bug surfaces as an
 * `invariant` error instead of silently unfair advantages:
 * - a sample's group key is exactly the key of its own (task, turn, role) or (task, role), so
 *   a group never mixes tasks, turns or roles;
 * - tree mode: every node has exactly K samples, branches 0..K-1 once each, byte-identical
 *   prompts, exactly one chosen branch;
 * - independent mode: episodes are in 0..K-1 and one episode's samples share one score.
 */
import { invariant } from '../util/errors.js';
import { independentGroupKey, treeGroupKey } from './build-sample.js';
import type { RolloutMode, Sample } from './types.js';

export function checkGroups(samples: readonly Sample[], mode: RolloutMode, k: number): void {
  const groups = new Map<string, Sample[]>();
  for (const s of samples) {
    const expected = mode === 'tree' ? treeGroupKey(s.task_id, s.turn, s.role) : independentGroupKey(s.task_id, s.role);
    invariant(s.group === expected, `sample group ${JSON.stringify(s.group)} should be ${JSON.stringify(expected)}`);
    const list = groups.get(s.group) ?? [];
    list.push(s);
    groups.set(s.group, list);
  }
  for (const [key, members] of groups) {
    if (mode === 'tree') {
      invariant(members.length === k, `tree node ${key} has ${members.length} samples, expected K = ${k}`);
      const branches = members.map((s) => s.branch).sort((a, b) => a - b);
      invariant(branches.every((b, i) => b === i), `tree node ${key} has branches ${branches.join(',')}`);
      invariant(members.every((s) => s.prompt === members[0]!.prompt), `tree node ${key} has differing prompts`);
      invariant(members.filter((s) => s.chosen).length === 1, `tree node ${key} must have exactly one chosen branch`);
    } else {
      const scoreOf = new Map<number, number>();
      for (const s of members) {
        invariant(s.episode !== undefined && s.episode >= 0 && s.episode < k, `group ${key} has episode ${s.episode}`);
        const seen = scoreOf.get(s.episode);
        invariant(seen === undefined || seen === s.score, `group ${key} episode ${s.episode} has differing scores`);
        scoreOf.set(s.episode, s.score);
      }
    }
  }
}
