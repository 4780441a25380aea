/**
 * `tasks:` the task's name plus that task's own options. Only `name` is checked here; the
 * other keys are validated by the named task's optionsSchema in resolveConfig, because which
 * keys exist depends on the task.
 */
import { z } from 'zod';

export const tasksSection = z.looseObject({
  name: z.string().min(1),
});
