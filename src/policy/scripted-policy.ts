/**
 * A model-free Policy that plays one role with its task's ScriptedResponder. Used by
 * `policy.kind: scripted` and by tests: it makes rollouts runnable (and deterministic) before
 * any model exists. Completion i of a request draws from Rng.derive(request.seed, i), so
 * results do not depend on how requests are batched. It has no tokenizer: no ids, no logprobs,
 * and `maxTokens` does not apply. Like an OpenAI-compatible server it cuts the text at the
 * first stop string (the stop string itself is not returned).
 */
import type { ScriptedResponder } from '../envs/types.js';
import { Rng } from '../util/rng.js';
import type { Completion, Policy, SampleRequest } from './types.js';

export interface ScriptedPolicyOptions {
  readonly responder: ScriptedResponder;
  /** The role this policy plays (the responder may play roles differently). */
  readonly role: string;
  /** 0 = random actions, 1 = the solver's actions. */
  readonly skill: number;
  /** Policy id written on samples. Default `scripted`. */
  readonly id?: string;
}

export function createScriptedPolicy(options: ScriptedPolicyOptions): Policy {
  const { responder, role, skill } = options;
  return {
    id: options.id ?? 'scripted',
    async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
      return requests.map((request) =>
        Array.from({ length: request.n }, (_, i): Completion => {
          const raw = responder({ role, prompt: request.prompt, skill, rng: Rng.derive(request.seed, i) });
          return { text: cutAtStop(raw, request.stop), finishReason: 'stop' };
        }),
      );
    },
  };
}

/** The text before the earliest occurrence of any stop string (all of it when none occurs). */
export function cutAtStop(text: string, stop: readonly string[]): string {
  let end = text.length;
  for (const s of stop) {
    if (s === '') continue;
    const at = text.indexOf(s);
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}
