/**
 * The policy map of `policy.kind: scripted`: one scripted policy per role, all driven by the
 * task's ScriptedResponder at one skill. The same object is returned for a role every time,
 * so the rollout batches that role's requests into one call.
 */
import type { ScriptedResponder } from '../envs/types.js';
import type { Policy } from './types.js';
import { createScriptedPolicy } from './scripted-policy.js';

export function scriptedPolicies(responder: ScriptedResponder, skill: number): (role: string) => Policy {
  const byRole = new Map<string, Policy>();
  return (role) => {
    let policy = byRole.get(role);
    if (!policy) {
      policy = createScriptedPolicy({ responder, role, skill });
      byRole.set(role, policy);
    }
    return policy;
  };
}
