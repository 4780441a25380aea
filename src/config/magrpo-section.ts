/**
 * `magrpo:` the MAGRPO settings of joint rollouts (algorithm magrpo; docs/magrpo.md). Maps to
 * JointOptions in src/rollout/types.ts; defaults live in src/rollout/joint-options.ts and are
 * filled by resolveConfig (`expand` depends on `joint`). Only allowed with algorithm magrpo,
 * so a key that would do nothing is an error instead.
 */
import { z } from 'zod';

export const magrpoSection = z
  .strictObject({
    /** `aligned`: G joint actions (the g-th response of every role); `cross`: all G^n combinations. */
    joint: z.enum(['aligned', 'cross']).default('aligned'),
    /** R = r + gamma * mean(R of the child joint actions); SEEDS.md gives 0.9 to 1.0. */
    gamma: z.number().min(0).max(1).default(0.9),
    /** Cross mode: a response is credited with the sum (MAGRPO) or the mean of its joint actions' returns. */
    credit: z.enum(['sum', 'mean']).default('sum'),
    /** Which joint actions continue into the next turn; default all (aligned) or best (cross). */
    expand: z.enum(['all', 'best', 'sampled']).optional(),
    /** What the joint reward adds to the team reward of the state (docs/magrpo.md). */
    reward: z.enum(['global', 'global+failures', 'global+local']).default('global'),
  })
  .prefault({});
