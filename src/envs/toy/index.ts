/**
 * The toy task's definition: options, task source, team, scripted player. Listed in
 * src/envs/task-catalog.ts as `toy`: the smallest built-in task. A task of your own is written outside
 * Troupe with defineTask (docs/new-task.md).
 */
import { z } from 'zod';
import { Rng } from '../../util/rng.js';
import type { ScriptedResponder, TaskDefinition, Team } from '../types.js';
import { MAX_STEP, ToyEnv } from './toy-env.js';
import { createToyRole } from './toy-roles.js';

export const toyOptionsSchema = z.strictObject({
  /** Targets are drawn uniformly from 2..max_target; 9 is reachable in 2 turns of 2 roles. */
  max_target: z.number().int().min(2).max(30).default(9),
});
export type ToyOptions = z.infer<typeof toyOptionsSchema>;

/** 1 when solved; 0 once overshot; otherwise progress toward the target, at most 0.5. */
export function toyGlobalReward(env: ToyEnv): number {
  if (env.success) return 1;
  if (env.done) return 0;
  return (0.5 * env.value) / env.target;
}

/** Reads target and value back from either prompt format, like a model would have to. */
const scripted: ScriptedResponder = ({ prompt, skill, rng }) => {
  const match = /T(\d+) V(\d+)/.exec(prompt) ?? /Target: (\d+)\. Current value: (\d+)/.exec(prompt);
  const target = Number(match?.[1] ?? 0);
  const value = Number(match?.[2] ?? 0);
  const best = Math.max(1, Math.min(MAX_STEP, target - value));
  const amount = rng.next() < skill ? best : 1 + rng.int(MAX_STEP);
  return prompt.includes('\n') && prompt.endsWith('A:') ? `${amount}\n` : `${amount}`;
};

export const toyTask: TaskDefinition<ToyEnv, ToyOptions> = {
  name: 'toy',
  description: 'Count from 0 to a seeded target exactly, 1-3 per move (the example task).',
  optionsSchema: toyOptionsSchema,
  defaultMaxTurns: 3,
  teamRoles: ['tool', 'plan'],
  createSource: (options, seed) => ({
    make(index, split) {
      const rng = Rng.derive(seed, 'toy', split, index);
      return new ToyEnv(`toy/${split}/${index}`, 2 + rng.int(options.max_target - 1));
    },
  }),
  createTeam(_options, team): Team<ToyEnv> {
    const names = team.variant === 'team' ? ['tool', 'plan'] : ['agent'];
    return {
      name: `toy-${team.variant}`,
      roles: names.map((name) => createToyRole(name, team.format)),
      order: team.order,
      maxTurns: team.maxTurns,
      alpha: team.alpha,
      globalReward: toyGlobalReward,
    };
  },
  scripted,
};
