/**
 * The whole config file. Each section lives in its own file; adding a section is that file
 * plus one line in `sections` below. Every object is strict: an unknown key is an error.
 */
import { z } from 'zod';
import { advantageSection } from './advantage-section.js';
import { policySection } from './policy-section.js';
import { rolloutSection } from './rollout-section.js';
import { tasksSection } from './tasks-section.js';
import { teamSection } from './team-section.js';

export const sections = {
  team: teamSection,
  rollout: rolloutSection,
  advantage: advantageSection,
  policy: policySection,
};

export const configSchema = z.strictObject({
  /** Run name (folder under runs/); defaults to the task name. */
  name: z.string().min(1).optional(),
  seed: z.number().int().min(0).default(1),
  tasks: tasksSection,
  ...sections,
});

export type ParsedConfig = z.output<typeof configSchema>;
