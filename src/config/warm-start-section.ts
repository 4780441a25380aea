/**
 * `warm_start:` supervised fine-tuning of the fresh base model on demonstrations that the
 * task's scripted player generates, deliberately imperfect (`skill`), so that RL starts from
 * a weak policy, as the published runs start from a weak LLM. The result is cached in the run
 * folder (base/) and reused by later runs with the same settings. The upper bounds keep a typo
 * (`epochs: 1e12`) from running out of memory or time: the demonstrations and every epoch's
 * batches are held in memory.
 */
import { z } from 'zod';

export const warmStartSection = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** Scripted player's skill for the demonstrations: 0 random, 1 the solver's moves. */
    skill: z.number().min(0).max(1).default(0.5),
    /** Episodes of demonstrations (each yields one sample per role and turn). */
    episodes: z.number().int().min(1).max(100_000).default(1500),
    /** Passes over the demonstrations. */
    epochs: z.number().int().min(1).max(1000).default(2),
    lr: z.number().positive().default(3e-3),
    /** Tokens (prompt + response) per optimizer step. */
    batch_tokens: z.number().int().min(64).max(1_048_576).default(8192),
    warmup_steps: z.number().int().min(0).max(1_000_000).default(10),
    /**
     * Turn order and turn limit of the team the scripted player demonstrates with; default: the
     * run's own team.order / team.max_turns. A parallel (MAGRPO) team can learn from the
     * demonstrations of the sequential team, whose plan sees the tool's proposal (docs/magrpo.md).
     */
    order: z.enum(['sequential', 'parallel']).optional(),
    max_turns: z.number().int().min(1).max(100).optional(),
  })
  .prefault({});
