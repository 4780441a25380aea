/**
 * The router of AT-GRPO's training system: it sends each policy's samples to that policy's
 * learner and to no other. In `shared` mode every role maps to one policy, so one bucket gets
 * everything; in `per-role` and `lora` modes each role's samples land in its own bucket.
 */
import type { Sample } from '../rollout/types.js';
import { TroupeError } from '../util/errors.js';
import type { TrainingSequence } from './learner.js';

export interface RoutedBatch {
  /** Training sequences per trainable policy id. */
  readonly byPolicy: Map<string, TrainingSequence[]>;
  /** Samples of policies that do not train (scripted, openai, reference), per policy id. */
  readonly untrained: Map<string, number>;
  /** Samples that cannot train because generation failed (no response tokens). */
  readonly emptyResponses: number;
}

/** `staleness`: asynchronous training's age of a sample in updates (async/staleness.ts); absent = on-policy. */
export function routeSamples(samples: readonly Sample[], trainable: ReadonlySet<string>, staleness?: (s: Sample) => number): RoutedBatch {
  const byPolicy = new Map<string, TrainingSequence[]>([...trainable].map((id) => [id, []]));
  const untrained = new Map<string, number>();
  let emptyResponses = 0;
  for (const sample of samples) {
    const bucket = byPolicy.get(sample.policy);
    if (!bucket) {
      untrained.set(sample.policy, (untrained.get(sample.policy) ?? 0) + 1);
      continue;
    }
    const { prompt_ids, response_ids, logprobs } = sample;
    if (!prompt_ids || !response_ids || !logprobs) {
      throw new TroupeError(
        'policy',
        `a sample of policy '${sample.policy}' (${sample.group}) has no token ids or logprobs, so it cannot train; ` +
          'only token-in/token-out policies (the embedded engine, or a server returning token ids and logprobs) can be trained',
      );
    }
    if (response_ids.length === 0) {
      emptyResponses++;
      continue;
    }
    const sequence: TrainingSequence = { promptIds: prompt_ids, responseIds: response_ids, oldLogprobs: logprobs, advantage: sample.advantage, group: sample.group };
    bucket.push(staleness === undefined ? sequence : { ...sequence, staleness: staleness(sample) });
  }
  return { byPolicy, untrained, emptyResponses };
}
