/**
 * The one way a completion acts on an env, shared by every sampling mode: read the action
 * (a failed generation becomes a failed parse with the generation's error as its reason, so
 * the role still applies its penalty; a reasoning model's thinking is set aside first,
 * answer-after-thinking.ts), let the role step the env, score the result with
 * total = local + alpha * global. Nothing here throws on bad model output: failures are
 * returned as data for the sample and the episode stats.
 */
import { mixReward, type RewardParts } from '../algo/mix-reward.js';
import type { Env, ParseResult, Role, StepOutcome, Team, TurnContext } from '../envs/types.js';
import type { Completion } from '../policy/types.js';
import { answerAfterThinking } from './answer-after-thinking.js';

export interface ParsedCompletion {
  readonly parsed: ParseResult<unknown>;
  readonly generationError: boolean;
}

export function parseCompletion(role: Role<any, any>, completion: Completion): ParsedCompletion {
  if (completion.finishReason === 'error') {
    return {
      parsed: { ok: false, reason: `generation error: ${completion.error ?? 'no error message given'}` },
      generationError: true,
    };
  }
  const answer = answerAfterThinking(completion.text);
  return { parsed: answer.ok ? role.parse(answer.text) : answer, generationError: false };
}

export interface StepResult {
  readonly outcome: StepOutcome;
  readonly reward: RewardParts;
  /** The sample's failure: generation error, else the role's failure, else the parse reason. */
  readonly failure: string | undefined;
}

/**
 * Applies an already parsed action to `env` (mutating it) and scores the resulting state. A
 * role's optional `prepare` (sandbox runs, outside advice) is awaited first, every time.
 */
export async function stepRole<E extends Env>(
  team: Team<E>,
  role: Role<E, any>,
  env: E,
  read: ParsedCompletion,
  ctx: TurnContext,
): Promise<StepResult> {
  if (role.prepare) await role.prepare(env, read.parsed, ctx);
  const outcome = role.step(env, read.parsed, ctx);
  const reward = mixReward(outcome.local, team.globalReward(env), team.alpha);
  let failure = outcome.failure;
  if (read.generationError && !read.parsed.ok) failure = read.parsed.reason;
  else if (failure === undefined && !read.parsed.ok) failure = `parse: ${read.parsed.reason}`;
  return { outcome, reward, failure };
}
