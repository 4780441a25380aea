/**
 * The one place where an agent's reward is assembled from its parts (SEEDS.md, AT-GRPO
 * rewards): total = local + alpha * global. The rollout calls nothing else, so the mixing rule
 * cannot drift between sampling modes.
 */

/** The parts of one sample's reward, kept separately so logs show what each part contributed. */
export interface RewardParts {
  /** The role's own reward for its action (StepOutcome.local). */
  readonly local: number;
  /** The team reward of the state after the action (Team.globalReward). */
  readonly global: number;
  /** local + alpha * global. */
  readonly total: number;
}

export function mixReward(local: number, global: number, alpha: number): RewardParts {
  return { local, global, total: local + alpha * global };
}
