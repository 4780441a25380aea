/**
 * A minimal driver for tests: plays one episode of a Team through the Role/Env interfaces,
 * sequential order, every role in turn order each turn, until the env is done or the turn
 * limit is hit. The real rollout (src/rollout/) is separate; this only exercises the contract.
 */
import type { Env, StepOutcome, Team } from '../types.js';

export interface PlayedStep {
  readonly turn: number;
  readonly role: string;
  readonly prompt: string;
  readonly text: string;
  readonly outcome: StepOutcome;
}

/**
 * Plays one episode through the Role/Env interfaces (a test driver, not the rollout): each
 * turn each role builds its prompt, `respond` answers, and the role's `prepare` (sandbox work,
 * if any) is awaited before its `step`, as the rollouts do.
 */
export async function playEpisode<E extends Env>(options: {
  team: Team<E>;
  env: E;
  respond: (role: string, prompt: string) => string;
}): Promise<{ env: E; steps: PlayedStep[]; turns: number }> {
  const { team, env, respond } = options;
  const steps: PlayedStep[] = [];
  let turns = 0;
  for (let turn = 0; turn < team.maxTurns && !env.done; turn++) {
    turns++;
    for (const role of team.roles) {
      const ctx = { turn, maxTurns: team.maxTurns };
      const prompt = role.prompt(env, ctx);
      const text = respond(role.name, prompt);
      const action = role.parse(text);
      await role.prepare?.(env, action, ctx);
      const outcome = role.step(env, action, ctx);
      steps.push({ turn, role: role.name, prompt, text, outcome });
      if (env.done) break;
    }
  }
  return { env, steps, turns };
}
