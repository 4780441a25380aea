/**
 * `policy:` what plays the roles. Every planned kind is a known value, so a config naming one
 * that is not built yet gets a clear error instead of being silently ignored.
 */
import { z } from 'zod';

export const policyKinds = ['scripted', 'embedded', 'openai', 'reference'] as const;
export type PolicyKind = (typeof policyKinds)[number];

/** The kinds this build can run. */
export const availablePolicyKinds: readonly PolicyKind[] = ['scripted'];

export const policySection = z
  .strictObject({
    kind: z.enum(policyKinds).default('scripted'),
    /** Scripted players only: 0 plays randomly, 1 plays the solver's moves. */
    skill: z.number().min(0).max(1).default(0.5),
  })
  .superRefine((policy, ctx) => {
    if (!availablePolicyKinds.includes(policy.kind)) {
      ctx.addIssue({
        code: 'custom',
        path: ['kind'],
        message: `${JSON.stringify(policy.kind)} is not available yet (available now: ${availablePolicyKinds.join(' | ')})`,
      });
    }
  })
  .prefault({});
