/**
 * `policy.kind: reference`: plays every role with the dataset's own solutions, through the
 * task's ReferenceResponder (TaskDefinition.createReference), so the whole reward pipeline
 * (parsing, sandbox, rewards, success) can be checked on real data without a model. Like any
 * policy it sees prompts only; the task's responder finds the problem from the prompt's task
 * id line. Every completion of a request is the same text. Like an OpenAI-compatible server
 * it cuts the text at the first stop string, so configs for code tasks need `rollout.stop: []`.
 */
import type { TaskDefinition } from '../envs/types.js';
import { TroupeError } from '../util/errors.js';
import { cutAtStop } from './scripted-policy.js';
import type { Completion, Policy, SampleRequest } from './types.js';

export function referencePolicies(task: TaskDefinition<any, any>, options: object, seed: number): (role: string) => Policy {
  if (!task.createReference) {
    throw new TroupeError(
      'config',
      `policy.kind: reference needs a task with reference solutions; task ${task.name} has none (tasks with them: code, coop-code, math). Use policy.kind: scripted`,
    );
  }
  const responder = task.createReference(options, seed);
  const byRole = new Map<string, Policy>();
  return (role) => {
    let policy = byRole.get(role);
    if (!policy) {
      policy = {
        id: 'reference',
        async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
          return requests.map((request) => {
            const text = cutAtStop(responder({ role, prompt: request.prompt }), request.stop);
            return Array.from({ length: request.n }, (): Completion => ({ text, finishReason: 'stop' }));
          });
        },
      };
      byRole.set(role, policy);
    }
    return policy;
  };
}
