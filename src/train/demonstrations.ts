/**
 * Demonstrations for the warm start: the task's scripted player (deliberately imperfect, at
 * `skill`) plays the team, and every completion it wrote becomes one supervised example
 * (prompt -> response), for every role and turn. Token ids are made the way the embedded
 * policy will later see them: BOS + prompt, and the response followed by the stop string
 * (or EOS when there is none), so the model learns where its answer ends.
 */
import type { ScoringPair } from '../engine/model/scoring-plan.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import type { Env, ScriptedResponder, TaskSource, Team } from '../envs/types.js';
import { scriptedPolicies } from '../policy/scripted-policies.js';
import { rollout } from '../rollout/rollout.js';
import type { RolloutOptions } from '../rollout/types.js';
import { TroupeError } from '../util/errors.js';

/** Demonstration tasks come from a part of the train split that RL steps do not reach first. */
export const DEMONSTRATION_TASK_OFFSET = 1_000_000;

export interface Demonstration extends ScoringPair {
  readonly role: string;
}

export async function collectDemonstrations<E extends Env>(options: {
  team: Team<E>;
  source: TaskSource<E>;
  scripted: ScriptedResponder;
  skill: number;
  episodes: number;
  rollout: RolloutOptions;
  tokenizer: Tokenizer;
  seed: number;
  /** Most tokens a demonstration may have (the model's context). */
  maxTokens: number;
}): Promise<Demonstration[]> {
  const { tokenizer } = options;
  const ending = options.rollout.stop[0];
  const eos = tokenizer.special.eos;
  if (ending === undefined && eos === undefined) {
    throw new TroupeError('config', 'the warm start needs rollout.stop or a tokenizer with an EOS token to mark where answers end');
  }
  const bos = tokenizer.special.bos;
  const batch = 256;
  const demos: Demonstration[] = [];
  let tooLong = 0;
  for (let start = 0; start < options.episodes; start += batch) {
    const tasks = Array.from({ length: Math.min(batch, options.episodes - start) }, (_, i) => DEMONSTRATION_TASK_OFFSET + start + i);
    const { samples } = await rollout({
      team: options.team,
      source: options.source,
      tasks,
      policyFor: scriptedPolicies(options.scripted, options.skill),
      options: { ...options.rollout, mode: 'tree', k: 1 },
      seed: options.seed,
      step: -1,
    });
    for (const s of samples) {
      const promptIds = bos === undefined ? tokenizer.encode(s.prompt) : [bos, ...tokenizer.encode(s.prompt)];
      const responseIds = ending === undefined ? [...tokenizer.encode(s.response), eos!] : tokenizer.encode(s.response + ending);
      if (promptIds.length + responseIds.length > options.maxTokens) {
        tooLong++;
        continue;
      }
      demos.push({ role: s.role, promptIds, responseIds });
    }
  }
  if (demos.length === 0) {
    throw new TroupeError('config', `no demonstration fits the model's context of ${options.maxTokens} tokens (${tooLong} too long); raise model.context`);
  }
  return demos;
}
