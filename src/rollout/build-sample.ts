/** Assembles a Sample from the pieces the sampling modes have at hand. */
import type { Completion } from '../policy/types.js';
import type { StepResult } from './apply-completion.js';
import type { Sample } from './types.js';

export interface SampleParts {
  readonly taskId: string;
  readonly turn: number;
  readonly role: string;
  readonly group: string;
  readonly branch: number;
  readonly chosen?: boolean;
  readonly episode?: number;
  readonly prompt: string;
  readonly completion: Completion;
  readonly result: StepResult;
  readonly policyId: string;
}

export function treeGroupKey(taskId: string, turn: number, role: string): string {
  return `${taskId}|t${turn}|${role}`;
}

export function independentGroupKey(taskId: string, role: string): string {
  return `${taskId}|${role}`;
}

export function buildSample(parts: SampleParts): Sample {
  const { completion, result } = parts;
  const sample: Sample = {
    task_id: parts.taskId,
    turn: parts.turn,
    role: parts.role,
    group: parts.group,
    branch: parts.branch,
    prompt: parts.prompt,
    response: completion.text,
    reward: result.reward,
    score: result.reward.total,
    advantage: 0,
    policy: parts.policyId,
    finish_reason: completion.finishReason,
  };
  if (parts.chosen !== undefined) sample.chosen = parts.chosen;
  if (parts.episode !== undefined) sample.episode = parts.episode;
  if (result.failure !== undefined) sample.failure = result.failure;
  if (completion.promptIds) sample.prompt_ids = [...completion.promptIds];
  if (completion.ids) sample.response_ids = [...completion.ids];
  if (completion.logprobs) sample.logprobs = [...completion.logprobs];
  return sample;
}
