/**
 * `policy.tinker:` a Tinker-compatible training service (`policy.kind: tinker`): the rollout
 * samples and the learner updates one LoRA training client per policy of the policy map there
 * (`troupe serve --tinker`, or any service speaking the Tinker API). docs/distributed.md.
 *
 *   policy:
 *     kind: tinker
 *     map: lora                        # one training client per role
 *     tinker:
 *       base_url: http://127.0.0.1:8000
 *       base_model: Qwen/Qwen3-1.7B    # default: model.path
 *       rank: 8                         # default: model.lora.r
 *
 * The API key is read from TINKER_API_KEY only, never from a config file (configs get shared).
 */
import { z } from 'zod';

export const tinkerSection = z.strictObject({
  /** The service root (the client adds /api/v1). */
  base_url: z.string().regex(/^https?:\/\/\S+$/, { error: 'base_url must be an http(s) URL such as http://127.0.0.1:8000' }),
  /** Base model name as the service lists it; defaults to model.path (a hub id or folder the service knows). */
  base_model: z.string().min(1).optional(),
  /** LoRA rank of every training client; defaults to model.lora.r. */
  rank: z.number().int().min(1).optional(),
  /** Retries of one HTTP request on 408/429/5xx/connection errors, with exponential backoff. */
  max_retries: z.number().int().min(0).default(5),
  /**
   * Most sampling requests in flight at once (a rollout or an evaluation asks for one per
   * prompt). SkyRL tx on its default SQLite database needs fewer than 15 (docs/distributed.md).
   */
  concurrency: z.number().int().min(1).default(64),
  /**
   * How the service reduces a datum's per-token losses: `sum` (the Tinker API as documented,
   * `troupe serve --tinker`) or `mean` (SkyRL tx: each datum's loss divided by the sum of its
   * weights, then averaged over the step's datums). The learner sends the request that gives
   * Troupe's exact gradient under it; the wrong one trains on a distorted gradient
   * (docs/distributed.md, "SkyRL tx").
   */
  loss_reduction: z.enum(['sum', 'mean']).default('sum'),
  /**
   * Longest wait, in seconds, for one request's result (a training step, a sample), after which
   * the run stops with an error naming the request and the service. Default none: wait without
   * limit, since a first JAX compile on SkyRL tx can take many minutes. Either way every minute
   * of waiting on one request prints `still waiting for <op> request <id> from <base_url> (N min)`.
   */
  future_timeout_s: z.number().positive().optional(),
});

export type TinkerSection = z.output<typeof tinkerSection>;
