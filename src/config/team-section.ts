/** `team:` how the task's agents play together (maps to TeamOptions in src/envs/types.ts). */
import { z } from 'zod';

export const teamSection = z
  .strictObject({
    /** `team`: the task's own roles (e.g. tool then plan); `single`: one role named `agent`. */
    variant: z.enum(['team', 'single']).default('team'),
    /** `compact` suits the small embedded models; `natural` is for real LLMs. */
    format: z.enum(['compact', 'natural']).default('compact'),
    order: z.enum(['sequential', 'parallel']).default('sequential'),
    /** Turn limit; when absent, the task's defaultMaxTurns (filled in by resolveConfig). */
    max_turns: z.number().int().min(1).max(100).optional(),
    /** Weight of the global reward: total = local + alpha * global (SEEDS.md, AT-GRPO). */
    alpha: z.number().min(0).default(1),
  })
  .prefault({});
