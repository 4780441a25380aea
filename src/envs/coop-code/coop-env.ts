/**
 * The live state of one coop-code task: a HumanEval-format problem, the latest code of each
 * agent (aux and main, or the single agent's completion), the evaluation of that state and
 * the external transition's text for the next turn. Problem, memo and advice source are
 * shared by clones; everything the episode changes is copied.
 */
import type { HumanEvalProblem } from '../../datasets/humaneval-problem.js';
import type { Env } from '../types.js';
import type { SandboxMemo } from '../code/shared-sandbox.js';
import type { AdviceSource } from './advice-source.js';
import type { CoopRewardParts, CoopRewardWeights } from './coop-reward.js';
import type { CoopEvaluation, TestOutcome } from './evaluate-coop.js';

/** How prompts after turn 1 are made (MAGRPO's external transitions). */
export type TransitionKind = 'feedback' | 'advice';

/** What every env of one task source shares. */
export interface CoopShared {
  readonly memo: SandboxMemo<CoopEvaluation | TestOutcome | string>;
  readonly weights: CoopRewardWeights;
  readonly transition: TransitionKind;
  readonly advice?: AdviceSource;
}

export class CoopCodeEnv implements Env {
  readonly taskId: string;
  readonly problem: HumanEvalProblem;
  readonly shared: CoopShared;
  aux: string | null = null;
  main: string | null = null;
  /** Team variant: the evaluation of (aux, main) and its reward parts. */
  evaluation: CoopEvaluation | null = null;
  reward: CoopRewardParts | null = null;
  /** Single variant: the completion and its test outcome. */
  completion: string | null = null;
  single: TestOutcome | null = null;
  /** The external transition's text for the next turn (feedback or advice), if any. */
  transitionText: string | null = null;
  notes: string[] = [];

  constructor(taskId: string, problem: HumanEvalProblem, shared: CoopShared) {
    this.taskId = taskId;
    this.problem = problem;
    this.shared = shared;
  }

  get success(): boolean {
    return (this.evaluation?.tests.allPassed ?? false) || (this.single?.allPassed ?? false);
  }

  get done(): boolean {
    return this.success;
  }

  clone(): this {
    const copy = new CoopCodeEnv(this.taskId, this.problem, this.shared);
    Object.assign(copy, {
      aux: this.aux,
      main: this.main,
      evaluation: this.evaluation,
      reward: this.reward,
      completion: this.completion,
      single: this.single,
      transitionText: this.transitionText,
      notes: [...this.notes],
    });
    return copy as this;
  }
}

export const jointKey = (env: CoopCodeEnv, aux: string, main: string) => `joint\u0000${env.taskId}\u0000${aux}\u0000${main}`;
export const adviceKey = (env: CoopCodeEnv, aux: string, main: string) => `advice\u0000${env.taskId}\u0000${aux}\u0000${main}`;
export const completionKey = (env: CoopCodeEnv, completion: string) => `single\u0000${env.taskId}\u0000${completion}`;
