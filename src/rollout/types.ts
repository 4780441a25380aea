/**
 * The rollout vocabulary (Rollout, Sample, Group key). Read this file first.
 *
 * A rollout plays a Team on a batch of tasks with one policy per role and records every
 * completion it sampled as a Sample. Three modes exist:
 *
 * - `tree` (AT-GRPO): each turn, each role forms a *node*: one prompt, K completions
 *   (branches). Every branch is applied to its own clone of the env and scored; the best
 *   branch's env continues. A node's K samples form one group and share byte-identical prompt
 *   text, so the group's advantages compare like with like.
 * - `independent` (GRPO baseline): K whole episodes per task, one completion per prompt.
 *   The K samples of a (task, role) group come from DIFFERENT prompts after turn 1, because
 *   each episode drifts its own way. That is precisely the weakness AT-GRPO's tree fixes; it
 *   is kept as the baseline. The prompt-identity promise holds for tree groups only.
 * - `joint` (MAGRPO): the roles act in parallel; at each node every role samples G
 *   completions from its own prompt, joint actions (aligned or cross) are each scored on
 *   their own env clone with the joint reward, and, over several turns, each joint action
 *   becomes a child node. A sample's score is its credited return (joint-rollout.ts); its
 *   group is one (task, node, role): G completions of one prompt.
 *
 * Samples are a file format (rollouts are written as JSONL), hence snake_case field names.
 */
import type { RewardParts } from '../algo/mix-reward.js';
import type { Env, Split, TaskSource, Team } from '../envs/types.js';
import type { FinishReason, Policy } from '../policy/types.js';

export type RolloutMode = 'tree' | 'independent' | 'joint';

/** MAGRPO settings of `joint` mode (the `magrpo:` config section; docs/magrpo.md). */
export type JointReward = 'global' | 'global+failures' | 'global+local';

export interface JointOptions {
  /** `aligned`: G joint actions (g-th of every role); `cross`: all G^n combinations. */
  readonly joint: 'aligned' | 'cross';
  /** Discount of the child node's mean return: R = r + gamma * mean(R children). 0..1. */
  readonly gamma: number;
  /** Cross joint actions: a response's credit is the sum (MAGRPO) or mean of their returns. */
  readonly credit: 'sum' | 'mean';
  /**
   * Which joint actions of a node continue into the next turn: all, the best by joint reward,
   * or one drawn uniformly (`sampled`: the episode follows the agents' own play).
   */
  readonly expand: 'all' | 'best' | 'sampled';
  /**
   * What the ONE joint reward of a joint action is, shared by every agent:
   * `global` (MAGRPO as published): Team.globalReward of the state it leads to;
   * `global+failures`: plus the local reward (the task's penalty) of each response in it that
   * failed to parse or generate; `global+local`: plus the local rewards of every role's step
   * (the team's summed per-move rewards, failure penalties included).
   */
  readonly reward: JointReward;
}

/**
 * Tree mode: continue from the best branch, from one drawn uniformly, or (a number p in [0, 1])
 * from a drawn one with probability p and the best otherwise.
 */
export type ContinueMode = 'best' | 'sampled' | number;

/** Sampling settings shared by every request of a rollout (see SampleRequest). */
export interface RolloutOptions {
  readonly mode: RolloutMode;
  /** Branches per node (tree), episodes per task (independent) or G per role per node (joint). At least 1. */
  readonly k: number;
  readonly temperature: number;
  readonly topP: number;
  /** 0 disables top-k. */
  readonly topK: number;
  readonly maxTokens: number;
  readonly stop: readonly string[];
  /**
   * Tree mode: which branch a node continues from; `best` (default, AT-GRPO), `sampled` (one
   * drawn uniformly from the K, so the episode follows the policy's own play) or a number p (drawn
   * with probability p, the best otherwise); a map sets it per role (roles it does not name: best).
   */
  readonly continueWith?: ContinueMode | Readonly<Record<string, ContinueMode>>;
  /** `joint` mode only; defaults: aligned, gamma 0.9, credit sum, expand all (aligned) / best (cross). */
  readonly joint?: Partial<JointOptions>;
}

export interface RolloutInput<E extends Env> {
  readonly team: Team<E>;
  readonly source: TaskSource<E>;
  /** Task indices to play (no duplicates: a task id must name one episode tree). */
  readonly tasks: readonly number[];
  /** Which split the indices refer to. Default 'train'. */
  readonly split?: Split;
  /** The policy that plays each role. Roles sharing a policy object are batched together. */
  readonly policyFor: (role: string) => Policy;
  readonly options: RolloutOptions;
  /** Run seed; request seeds derive from (seed, step, task, turn, role[, episode]). */
  readonly seed: number;
  /** Training step (0 for a plain rollout), so each step samples fresh completions. */
  readonly step: number;
}

/** One sampled completion and what it earned. */
export interface Sample {
  /** Env.taskId of the task the sample belongs to. */
  task_id: string;
  /** 0-based turn. */
  turn: number;
  role: string;
  /**
   * Group key: `${task_id}|t${turn}|${role}` for a tree node, `${task_id}|${role}` for an
   * independent (task, role) group, `${task_id}|n${node}|${role}` for a joint node.
   * Advantages compare samples of one group only.
   */
  group: string;
  /** Index of the completion within its request (0..K-1 in tree and joint mode, 0 in independent mode). */
  branch: number;
  /** Tree mode: this branch's env is the one the episode continued from. */
  chosen?: boolean;
  /** Independent mode: which of the task's K episodes (0..K-1). */
  episode?: number;
  /**
   * Joint mode: the node's path in the task's joint-action tree: `0` is the root (turn 0), and
   * `0.5` the child of the root's joint action 5 (turn 1). Its depth is the turn.
   */
  node?: string;
  prompt: string;
  response: string;
  reward: RewardParts;
  /**
   * The number the advantage estimator compares within the group: reward.total in tree mode;
   * in independent mode the role's return over its whole episode (sum of its reward.total);
   * in joint mode the response's credited MAGRPO return (src/algo/magrpo-credit.ts).
   */
  score: number;
  /** Filled by computeAdvantages (src/algo); 0 until then. */
  advantage: number;
  /** Policy.id of the policy that sampled the completion. */
  policy: string;
  /**
   * Asynchronous training only: how many updates the policy had received when it sampled this
   * completion (the trainer loop sets it; absent in on-policy runs, where it is always current).
   */
  policy_version?: number;
  /** Why the action went wrong (generation error, parse failure, invalid move), if it did. */
  failure?: string;
  finish_reason: FinishReason;
  prompt_ids?: number[];
  response_ids?: number[];
  logprobs?: number[];
}

/** What happened in one episode (tree and joint mode: one per task; independent mode: K per task). */
export interface EpisodeStats {
  task_id: string;
  /** 0 in tree mode. */
  episode: number;
  success: boolean;
  /** Turns started (1..maxTurns). */
  turns: number;
  /** Samples whose text could not be parsed into an action (all branches counted). */
  parse_failures: number;
  /** Samples whose generation failed (finish_reason 'error'). */
  generation_errors: number;
  /** Samples with any failure: the two above plus invalid actions the role reported. */
  failures: number;
  /** Per role: the sum of reward.total over the samples the episode followed. */
  returns: Record<string, number>;
}

export interface RolloutResult {
  samples: Sample[];
  episodes: EpisodeStats[];
}
