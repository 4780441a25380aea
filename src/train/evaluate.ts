/**
 * Held-out evaluation: the team plays `n` tasks of the eval split (which training never
 * sees), one episode each (tree mode with K = 1 is exactly one plain episode), at the eval
 * temperature (0 = greedy). Reports the success rate with a 95% Wilson interval, mean turns
 * and per-role rewards of the played actions.
 */
import type { Env, TaskSource, Team } from '../envs/types.js';
import type { Policy } from '../policy/types.js';
import { rolloutInBatches } from '../rollout/rollout-in-batches.js';
import type { RolloutOptions } from '../rollout/types.js';

export interface EvalResult {
  readonly success_rate: number;
  /** 95% Wilson score interval of the success rate. */
  readonly ci_low: number;
  readonly ci_high: number;
  readonly n: number;
  readonly mean_turns: number;
  /** Per role: mean reward.total (and parts) over the actions the episodes took. */
  readonly roles: Record<string, { reward: number; local: number; global: number }>;
  readonly parse_failures: number;
  /** Completions the policy failed to generate (server down, timeout, ...). */
  readonly generation_errors: number;
  /** The first generation error's reason, so a broken backend is obvious. */
  readonly first_error?: string;
}

/** 95% Wilson score interval for `successes` out of `n` (z = 1.96). */
export function wilsonInterval(successes: number, n: number, z = 1.959964): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface EvalInput<E extends Env> {
  team: Team<E>;
  source: TaskSource<E>;
  policyFor: (role: string) => Policy;
  rollout: RolloutOptions;
  tasks: number;
  temperature: number;
  seed: number;
  /** Stops between batches: the batch in flight finishes and is scored, no other is played. */
  signal?: AbortSignal;
  /** Tasks per batch (default all at once: one batch, which nothing can stop half-way). */
  batch?: number;
}

export async function evaluate<E extends Env>(options: EvalInput<E>): Promise<EvalResult> {
  return (await evaluateStoppable(options)).result;
}

/** `evaluate`, also saying whether `signal` stopped it before every task was played. */
export async function evaluateStoppable<E extends Env>(options: EvalInput<E>): Promise<{ result: EvalResult; interrupted: boolean }> {
  const indices = Array.from({ length: options.source.size === undefined ? options.tasks : Math.min(options.tasks, options.source.size) }, (_, i) => i);
  const { samples, episodes, interrupted } = await rolloutInBatches(
    {
      team: options.team,
      source: options.source,
      tasks: indices,
      split: 'eval',
      policyFor: options.policyFor,
      options: { ...options.rollout, mode: 'tree', k: 1, temperature: options.temperature },
      seed: options.seed,
      step: 0,
    },
    { batch: options.batch ?? Math.max(1, indices.length), ...(options.signal === undefined ? {} : { signal: options.signal }) },
  );
  const successes = episodes.filter((e) => e.success).length;
  const firstError = samples.find((s) => s.finish_reason === 'error')?.failure;
  const { low, high } = wilsonInterval(successes, episodes.length);
  const roles: EvalResult['roles'] = {};
  for (const role of options.team.roles.map((r) => r.name)) {
    const mine = samples.filter((s) => s.role === role);
    const mean = (f: (s: (typeof mine)[number]) => number) => (mine.length === 0 ? 0 : mine.reduce((a, s) => a + f(s), 0) / mine.length);
    roles[role] = { reward: mean((s) => s.reward.total), local: mean((s) => s.reward.local), global: mean((s) => s.reward.global) };
  }
  const result: EvalResult = {
    success_rate: episodes.length === 0 ? 0 : successes / episodes.length,
    ci_low: low,
    ci_high: high,
    n: episodes.length,
    mean_turns: episodes.length === 0 ? 0 : episodes.reduce((a, e) => a + e.turns, 0) / episodes.length,
    roles,
    parse_failures: episodes.reduce((a, e) => a + e.parse_failures, 0),
    generation_errors: episodes.reduce((a, e) => a + e.generation_errors, 0),
    ...(firstError === undefined ? {} : { first_error: firstError }),
  };
  return { result, interrupted };
}
