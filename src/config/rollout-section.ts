/** `rollout:` how samples are drawn (maps to RolloutOptions in src/rollout/types.ts). */
import { z } from 'zod';

const continueMode = z.union([z.enum(['best', 'sampled']), z.number().min(0).max(1)]);

export const rolloutSection = z
  .strictObject({
    /**
     * `tree` = AT-GRPO branching; `independent` = K whole episodes per task (GRPO baseline);
     * `joint` = MAGRPO joint actions. Follows `algorithm` (at-grpo: tree, grpo: independent,
     * magrpo: joint); each algorithm requires its own mode.
     */
    mode: z.enum(['tree', 'independent', 'joint']).optional(),
    /** Branches per node (tree), episodes per task (independent), or G per role per node (joint); 4 as in MAGRPO's G. */
    k: z.number().int().min(1).max(64).default(4),
    /**
     * Tree mode: which of a node's K branches the episode continues from. `best` (AT-GRPO as
     * published): the highest total. `sampled`: one branch drawn uniformly, i.e. the policy's own
     * move, so training visits the states the policy reaches (all K branches still form the group).
     * A number p in [0, 1] mixes them: each node draws with probability p, else takes the best.
     * A map gives each role its own, e.g. `{tool: sampled, plan: best}` (unnamed roles: best).
     */
    continue: z.union([continueMode, z.record(z.string(), continueMode)]).default('best'),
    /** Tasks per batch. */
    tasks: z.number().int().min(1).max(10_000).default(8),
    temperature: z.number().min(0).default(1),
    top_p: z.number().gt(0).max(1).default(1),
    /** 0 disables top-k. */
    top_k: z.number().int().min(0).default(0),
    /** Enough for a compact action line (e.g. a list of moves). */
    max_tokens: z.number().int().min(1).max(65_536).default(48),
    /** Compact actions end at the first newline. An empty stop string would end every completion before it starts. */
    stop: z.array(z.string().min(1, 'a stop string must not be empty (it would end every completion before its first token)')).max(16).default(['\n']),
  })
  .prefault({});
