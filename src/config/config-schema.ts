/**
 * The whole config file. Each section lives in its own file; adding a section is that file
 * plus one line in `sections` below. Every object is strict: an unknown key is an error.
 */
import { z } from 'zod';
import { advantageSection } from './advantage-section.js';
import { engineSection } from './engine-section.js';
import { magrpoSection } from './magrpo-section.js';
import { policySection } from './policy-section.js';
import { rolloutSection } from './rollout-section.js';
import { tasksSection } from './tasks-section.js';
import { teamSection } from './team-section.js';
import { modelSection } from './model-section.js';
import { trainSection } from './train-section.js';
import { warmStartSection } from './warm-start-section.js';

export const sections = {
  team: teamSection,
  rollout: rolloutSection,
  advantage: advantageSection,
  magrpo: magrpoSection,
  policy: policySection,
  model: modelSection,
  warm_start: warmStartSection,
  train: trainSection,
  engine: engineSection,
};

export const configSchema = z.strictObject({
  /** Run name (folder under runs/); defaults to the task name. */
  name: z.string().min(1).optional(),
  seed: z.number().int().min(0).default(1),
  /**
   * at-grpo: tree rollouts, (task, turn, role) groups; grpo: independent episodes, task-level
   * groups (the baseline); magrpo: joint actions and returns over turns.
   */
  algorithm: z.enum(['at-grpo', 'grpo', 'magrpo']).default('at-grpo'),
  tasks: tasksSection,
  ...sections,
});

export type ParsedConfig = z.output<typeof configSchema>;
