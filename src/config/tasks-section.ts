/**
 * `tasks:` the task's name plus that task's own options. Only `name` and `module` are checked
 * here; the other keys are validated by the named task's optionsSchema in resolveConfig,
 * because which keys exist depends on the task. `module` (a path relative to the config file)
 * names a module whose default export is the user's task definition; readConfig imports it
 * and fills `name` from it.
 */
import { z } from 'zod';

export const tasksSection = z.looseObject({
  name: z.string().min(1),
  module: z.string().min(1).optional(),
});
