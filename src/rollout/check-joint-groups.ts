/**
 * The group invariants of DESIGN.md (3) for joint (MAGRPO) rollouts, asserted on a finished
 * rollout like check-groups.ts does for the other modes:
 * - a sample's group key is exactly `${task_id}|n${node}|${role}` and its turn is the node's
 *   depth, so a group never mixes tasks, nodes (hence turns) or roles;
 * - every group has exactly G samples, responses 0..G-1 once each, byte-identical prompts;
 * - every (task, node) has the same roles, and every non-root node's parent is in the rollout.
 */
import { invariant } from '../util/errors.js';
import { depthOf, jointGroupKey, parentOf } from './joint-node-path.js';
import type { Sample } from './types.js';

export function checkJointGroups(samples: readonly Sample[], g: number): void {
  const groups = new Map<string, Sample[]>();
  const rolesAt = new Map<string, Set<string>>();
  for (const s of samples) {
    invariant(s.node !== undefined, `joint sample of ${s.task_id} ${s.role} has no node path`);
    const expected = jointGroupKey(s.task_id, s.node, s.role);
    invariant(s.group === expected, `sample group ${JSON.stringify(s.group)} should be ${JSON.stringify(expected)}`);
    invariant(s.turn === depthOf(s.node), `sample of node ${s.node} has turn ${s.turn}, expected ${depthOf(s.node)}`);
    const list = groups.get(s.group) ?? [];
    list.push(s);
    groups.set(s.group, list);
    const at = `${s.task_id}|n${s.node}`;
    rolesAt.set(at, (rolesAt.get(at) ?? new Set()).add(s.role));
  }
  for (const [key, members] of groups) {
    invariant(members.length === g, `joint node group ${key} has ${members.length} samples, expected G = ${g}`);
    const responses = members.map((s) => s.branch).sort((a, b) => a - b);
    invariant(responses.every((b, i) => b === i), `joint node group ${key} has responses ${responses.join(',')}`);
    invariant(members.every((s) => s.prompt === members[0]!.prompt), `joint node group ${key} has differing prompts`);
  }
  let roles: string | undefined;
  for (const [at, names] of rolesAt) {
    const list = [...names].sort().join(',');
    roles ??= list;
    invariant(list === roles, `joint node ${at} has roles ${list}, other nodes ${roles}`);
    const [task, node] = at.split('|n') as [string, string];
    const parent = parentOf(node);
    invariant(parent === undefined || rolesAt.has(`${task}|n${parent}`), `joint node ${at} has no parent node in the rollout`);
  }
}
