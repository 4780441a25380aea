/**
 * One JSON line per sample, keys always in the same order (the order of the Sample type), so
 * the same rollout gives a byte-identical file. Optional fields are left out when absent.
 */
import type { Sample } from './types.js';

export function sampleToJson(s: Sample): string {
  const ordered: Record<string, unknown> = {
    task_id: s.task_id,
    turn: s.turn,
    role: s.role,
    group: s.group,
    branch: s.branch,
    chosen: s.chosen,
    episode: s.episode,
    node: s.node,
    prompt: s.prompt,
    response: s.response,
    reward: { local: s.reward.local, global: s.reward.global, total: s.reward.total },
    score: s.score,
    advantage: s.advantage,
    policy: s.policy,
    policy_version: s.policy_version,
    failure: s.failure,
    finish_reason: s.finish_reason,
    prompt_ids: s.prompt_ids,
    response_ids: s.response_ids,
    logprobs: s.logprobs,
  };
  // JSON.stringify drops undefined values, keeping the order of the rest.
  return JSON.stringify(ordered);
}
