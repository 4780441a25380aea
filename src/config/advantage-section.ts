/** `advantage:` how samples are compared within their group (src/algo). */
import { z } from 'zod';
import { estimatorNames, type EstimatorName } from '../algo/advantage-estimators.js';

export const advantageSection = z
  .strictObject({
    estimator: z.enum(estimatorNames as [EstimatorName, ...EstimatorName[]]).default('grpo'),
    /** Drop groups whose scores all tie: they carry no signal under a centred estimator. */
    filter_zero_variance: z.boolean().default(false),
  })
  .prefault({});
