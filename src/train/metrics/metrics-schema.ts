/**
 * The shape a `metrics.jsonl` line must have, checked when the file is read back (for the
 * report, for resume). Objects are loose: a field added by a newer Troupe is kept, not an
 * error, so old readers keep working on new files.
 */
import { z } from 'zod';
import type { MetricsRecord } from './types.js';

const metric = z.number().nullable();
const count = z.number().int().min(0);
const base = { step: z.number().int().min(-1), elapsed_s: z.number().min(0).optional() };

const roleTrain = z.looseObject({ reward: metric, local: metric, global: metric, response_len: metric, samples: count });
const policyTrain = z.looseObject({
  loss: metric,
  clip_fraction: metric,
  kl: metric,
  entropy: metric,
  grad_norm: metric,
  tokens: count,
  logprob_gap_max: metric.optional(),
  logprob_gap_mean: metric.optional(),
  is_weight_mean: metric.optional(),
  is_truncated_fraction: metric.optional(),
});

const trainRecord = z.looseObject({
  ...base,
  kind: z.literal('train'),
  success_rate: metric,
  success_of: z.enum(['best-branch', 'sampled']).optional(),
  mean_turns: metric,
  episodes: count,
  samples: count,
  tokens: count,
  parse_failures: count,
  filtered_groups: count,
  samples_per_s: metric,
  tokens_per_s: metric,
  rollout_s: z.number().min(0),
  update_s: z.number().min(0),
  lr: metric,
  roles: z.record(z.string(), roleTrain),
  policies: z.record(z.string(), policyTrain),
  off_policy: z
    .looseObject({
      max_steps_off_policy: count,
      staleness: z.record(z.string(), count),
      max_staleness: count,
      requeued_groups: count,
      trained_groups: count,
      logprob_gap_max: metric,
      is_weight_min: metric,
      is_weight_max: metric,
    })
    .optional(),
});

const evalRecord = z.looseObject({
  ...base,
  kind: z.literal('eval'),
  split: z.literal('eval'),
  success_rate: metric,
  ci_low: metric,
  ci_high: metric,
  n: count,
  mean_turns: metric,
  roles: z.record(z.string(), z.looseObject({ reward: metric })),
});

const warmStartRecord = z.looseObject({
  ...base,
  kind: z.literal('warm-start'),
  loss: metric,
  tokens: count,
  lr: metric,
});

export const metricsRecordSchema: z.ZodType<MetricsRecord> = z.discriminatedUnion('kind', [
  trainRecord,
  evalRecord,
  warmStartRecord,
]);
