/**
 * Batched sampling for one rollout step: the requests of every active task (and, in parallel
 * turns, every role) go out as ONE `policy.sample` call per policy object, so a batched
 * engine sees the whole step at once. Results come back in the caller's order whatever the
 * grouping, and each policy's answer is checked against the Policy contract.
 */
import type { Completion, Policy, SampleRequest } from '../policy/types.js';
import { TroupeError } from '../util/errors.js';
import { yieldToEventLoop } from '../util/yield-to-event-loop.js';
import type { RolloutOptions } from './types.js';

export interface PolicyCall {
  readonly policy: Policy;
  readonly request: SampleRequest;
}

export function makeRequest(prompt: string, n: number, seed: number, options: RolloutOptions): SampleRequest {
  return {
    prompt,
    n,
    seed,
    temperature: options.temperature,
    topP: options.topP,
    topK: options.topK,
    maxTokens: options.maxTokens,
    stop: options.stop,
  };
}

/**
 * Returns, for each call in order, its `request.n` completions. Each batch first yields to the
 * event loop: an embedded policy computes synchronously, so without this an evaluation (many
 * batches, no training step between them) would hold a server of the same program silent.
 */
export async function samplePolicies(calls: readonly PolicyCall[]): Promise<Completion[][]> {
  await yieldToEventLoop();
  const byPolicy = new Map<Policy, number[]>();
  calls.forEach((call, index) => {
    const list = byPolicy.get(call.policy) ?? [];
    list.push(index);
    byPolicy.set(call.policy, list);
  });
  const results: Completion[][] = new Array(calls.length);
  await Promise.all(
    [...byPolicy].map(async ([policy, indices]) => {
      const answers = await policy.sample(indices.map((i) => calls[i]!.request));
      if (answers.length !== indices.length) {
        throw new TroupeError(
          'policy',
          `policy ${policy.id} returned ${answers.length} completion lists for ${indices.length} requests; ` +
            'a policy must answer every request, in order',
        );
      }
      answers.forEach((completions, j) => {
        const index = indices[j]!;
        const n = calls[index]!.request.n;
        if (completions.length !== n) {
          throw new TroupeError(
            'policy',
            `policy ${policy.id} returned ${completions.length} completions for a request with n = ${n}; ` +
              'a failed generation must be returned as a completion with finishReason "error"',
          );
        }
        results[index] = completions;
      });
    }),
  );
  return results;
}
