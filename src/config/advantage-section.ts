/** `advantage:` how samples are compared within their group (src/algo). */
import { z } from 'zod';
import { estimatorNames, type EstimatorName } from '../algo/advantage-estimators.js';
import { groupings } from '../algo/regroup.js';

export const advantageSection = z
  .strictObject({
    estimator: z.enum(estimatorNames as [EstimatorName, ...EstimatorName[]]).default('grpo'),
    /** Drop groups whose scores all tie: they carry no signal under a centred estimator. */
    filter_zero_variance: z.boolean().default(false),
    /**
     * The least group std the grpo estimator divides by: spreads below it are not blown up to
     * unit scale. 0 is plain GRPO.
     */
    std_floor: z.number({ error: 'std_floor must be a number' }).min(0, { error: 'std_floor must be at least 0 (0 is plain GRPO)' }).default(0),
    /**
     * Which fields make a tree-sampling group (AT-GRPO only): task-turn-role (AT-GRPO), or the
     * grouping ablations task-role (agent-wise only), task-turn (turn-wise only), task (neither).
     */
    group_by: z.enum(groupings, { error: `group_by must be one of ${groupings.join(' | ')}` }).default('task-turn-role'),
  })
  .prefault({});
