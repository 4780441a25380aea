/**
 * The `coop-code` task (SEEDS.md section 2, MAGRPO): an `aux` agent writes a helper, a `main`
 * agent writes the entry-point function and may call it; one joint 4-level reward
 * (coop-reward.ts). Multi-turn prompts come from an external transition: failing-test
 * feedback (self-evolution) or an outside model's advice (guided). `team.variant: single` is
 * HumanEval code completion (examples/humaneval.yaml). Problems: a HumanEval-format file
 * (`tasks.path`) or the built-in synthetic set.
 */
import { z } from 'zod';
import { TroupeError } from '../../util/errors.js';
import { readHumanEval } from '../../datasets/humaneval-problem.js';
import { problemSet } from '../../datasets/problem-set.js';
import { syntheticFunctionProblem } from '../../datasets/synthetic-functions.js';
import { SandboxMemo } from '../code/shared-sandbox.js';
import { problemSource } from '../code/problem-source.js';
import type { TaskDefinition, Team, TeamOptions } from '../types.js';
import { chatAdviceSource, type AdviceSource } from './advice-source.js';
import { CoopCodeEnv, type CoopShared } from './coop-env.js';
import { coopReferencePlayer, scriptedCoopPlayer } from './coop-players.js';
import { coopRewardWeightsSchema, type CoopRewardWeights } from './coop-reward.js';
import { createCompletionRole, createPairRole } from './coop-roles.js';

export const coopCodeOptionsSchema = z.strictObject({
  /** HumanEval-format JSONL(.gz); absent = built-in synthetic set. */
  path: z.string().min(1).optional(),
  /** Eval split file; absent = the eval split reads `path` too (benchmark use). */
  eval_path: z.string().min(1).optional(),
  /** Weights of the 4-level reward (defaults as published, max 4.0). */
  reward: coopRewardWeightsSchema,
  /** Prompts after turn 1: `feedback` (failing tests) or `advice` (an outside model). */
  transition: z.enum(['feedback', 'advice']).default('feedback'),
  /** The advice model (OpenAI-compatible), required with transition: advice. */
  advice: z
    .strictObject({
      base_url: z.string().url(),
      model: z.string().min(1),
      /** Environment variable holding the API key, if the server needs one. */
      api_key_env: z.string().optional(),
      max_tokens: z.number().int().min(1).default(256),
    })
    .optional(),
});
export type CoopCodeOptions = z.infer<typeof coopCodeOptionsSchema>;

function problems(options: CoopCodeOptions, seed: number) {
  return problemSet({
    path: options.path,
    evalPath: options.eval_path,
    read: readHumanEval,
    synthetic: (split, index) => syntheticFunctionProblem(seed, split, index),
  });
}

function adviceOf(options: CoopCodeOptions): AdviceSource | undefined {
  const a = options.advice;
  if (!a) return undefined;
  const apiKey = a.api_key_env ? process.env[a.api_key_env] : undefined;
  return chatAdviceSource({ baseUrl: a.base_url, model: a.model, maxTokens: a.max_tokens, ...(apiKey ? { apiKey } : {}) });
}

/** Builds the source; `advice` overrides the configured advice model (tests pass a fake). */
export function createCoopSource(options: CoopCodeOptions, seed: number, advice?: AdviceSource) {
  const set = problems(options, seed);
  const source = advice ?? adviceOf(options);
  const shared: CoopShared = {
    memo: new SandboxMemo(),
    weights: options.reward,
    transition: options.transition,
    ...(source ? { advice: source } : {}),
  };
  return problemSource({ task: 'coop-code', set, make: (problem, taskId) => new CoopCodeEnv(taskId, problem, shared) });
}

/** Team: the joint 4-level reward; single: the share of asserts passed. */
export function coopGlobalReward(env: CoopCodeEnv): number {
  if (env.single) return env.single.total > 0 ? env.single.passed / env.single.total : 0;
  return env.reward?.total ?? 0;
}

const DEFAULT_WEIGHTS = coopRewardWeightsSchema.parse(undefined);

/** Combinations the task cannot play, and keys that would do nothing (config errors). */
function checkOptions(options: CoopCodeOptions, variant: TeamOptions['variant']): void {
  if (options.transition === 'advice' && !options.advice) {
    throw new TroupeError(
      'config',
      'tasks.transition: advice needs tasks.advice.base_url and tasks.advice.model (an OpenAI-compatible server); or use transition: feedback',
    );
  }
  if (options.advice && options.transition !== 'advice') {
    throw new TroupeError('config', `tasks.advice has no effect with tasks.transition ${options.transition}; set tasks.transition: advice, or remove tasks.advice`);
  }
  if (variant === 'single' && options.transition === 'advice') {
    throw new TroupeError('config', 'tasks.transition: advice is a transition of the aux + main team; the single variant gets failing-test feedback. Use transition: feedback or team.variant: team');
  }
  const changed = (Object.keys(DEFAULT_WEIGHTS) as Array<keyof CoopRewardWeights>).filter((k) => options.reward[k] !== DEFAULT_WEIGHTS[k]);
  if (variant === 'single' && changed.length > 0) {
    throw new TroupeError(
      'config',
      `tasks.reward.${changed[0]} has no effect with team.variant single (its reward is the share of asserts passed); remove tasks.reward or use team.variant: team`,
    );
  }
}

export const coopCodeTask: TaskDefinition<CoopCodeEnv, CoopCodeOptions> = {
  name: 'coop-code',
  description: 'MAGRPO aux + main functions with the 4-level reward; single variant = HumanEval completion (sandboxed).',
  optionsSchema: coopCodeOptionsSchema,
  defaultMaxTurns: 2,
  teamRoles: ['aux', 'main'],
  createSource: (options, seed) => createCoopSource(options, seed),
  createTeam(options, team): Team<CoopCodeEnv> {
    checkOptions(options, team.variant);
    const roles = team.variant === 'team' ? [createPairRole('aux', team.format), createPairRole('main', team.format)] : [createCompletionRole(team.format)];
    return { name: `coop-code-${team.variant}`, roles, order: team.order, maxTurns: team.maxTurns, alpha: team.alpha, globalReward: coopGlobalReward };
  },
  scripted: scriptedCoopPlayer,
  createReference: (options, seed) => coopReferencePlayer(problems(options, seed)),
};
