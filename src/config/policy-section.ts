/**
 * `policy:` what plays the roles. Every planned kind is a known value, so a config naming one
 * that is not built yet gets a clear error instead of being silently ignored.
 *
 * For `kind: embedded`, `map` says which roles share weights (DESIGN.md "Policy map"):
 * - `shared`: one model plays every role (the role is in the prompt);
 * - `per-role`: one model per role, each updated only on its own role's samples;
 * - `lora`: one frozen base model, one LoRA adapter per role;
 * - a mapping role -> policy id (e.g. { tool: small, plan: big }): roles with the same id share
 *   a model; `models.<id>` may give that model its own sizes (heterogeneous teams).
 */
import { z } from 'zod';
import { modelOverride } from './model-section.js';
import { openaiSection } from './openai-section.js';
import { tinkerSection } from './tinker-section.js';

export const policyKinds = ['scripted', 'embedded', 'openai', 'reference', 'tinker'] as const;
export type PolicyKind = (typeof policyKinds)[number];

/** The kinds this build can run. */
export const availablePolicyKinds: readonly PolicyKind[] = ['scripted', 'embedded', 'reference', 'openai', 'tinker'];

export const policyMaps = ['shared', 'per-role', 'lora'] as const;

export const policySection = z
  .strictObject({
    kind: z.enum(policyKinds).default('scripted'),
    /** Scripted players only: 0 plays randomly, 1 plays the solver's moves. */
    skill: z.number().min(0).max(1).default(0.5),
    /** Embedded and tinker: which roles share weights (see above; with tinker every policy is a LoRA client). */
    map: z.union([z.enum(policyMaps), z.record(z.string().min(1), z.string().min(1))]).default('shared'),
    /** Embedded only: size overrides per policy id, for heterogeneous teams. */
    models: z.record(z.string().min(1), modelOverride).default({}),
    /** An OpenAI-compatible server (kind openai, or some roles of an embedded team): openai-section.ts. */
    openai: openaiSection.optional(),
    /** A Tinker-compatible training service (kind tinker): tinker-section.ts. */
    tinker: tinkerSection.optional(),
  })
  .superRefine((policy, ctx) => {
    if (!availablePolicyKinds.includes(policy.kind)) {
      ctx.addIssue({
        code: 'custom',
        path: ['kind'],
        message: `${JSON.stringify(policy.kind)} is not available yet (available now: ${availablePolicyKinds.join(' | ')})`,
      });
    }
    if (policy.kind === 'openai' && policy.openai === undefined) {
      ctx.addIssue({ code: 'custom', path: ['openai'], message: 'kind openai needs an openai section: { base_url: http://127.0.0.1:8000/v1, model: <name> }' });
    }
    if (policy.kind === 'tinker' && policy.tinker === undefined) {
      ctx.addIssue({ code: 'custom', path: ['tinker'], message: 'kind tinker needs a tinker section: { base_url: http://127.0.0.1:8000 } (the API key comes from TINKER_API_KEY)' });
    }
  })
  .prefault({});
