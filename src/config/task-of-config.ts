/**
 * The task definition a resolved config plays. resolveConfig looks the task up in the catalog
 * of the call that resolved it and ties the definition to that config's `tasks` section, so
 * the rest of the run asks the config (`taskOf(config)`) rather than a process-wide name table:
 * two runs in one process with different tasks of the same name each get their own.
 *
 * The tie is to the `tasks` object itself, which the resolved config keeps however it is
 * spread; a config that crossed a thread (structured clone) or was re-read from disk has no tie
 * and falls back to the built-in task of its name, so the sampling thread re-imports
 * `tasks.module` and binds it again (bindTask).
 */
import { builtInTaskNames, builtInTask, type AnyTaskDefinition, type TaskOrigin } from '../envs/task-catalog.js';
import { TroupeError } from '../util/errors.js';

interface Bound {
  readonly task: AnyTaskDefinition;
  readonly origin: TaskOrigin;
}

const bound = new WeakMap<object, Bound>();

interface HasTasks {
  readonly tasks: { readonly name: string };
}

/** Ties `task` (from `origin`) to `config`'s tasks section. */
export function bindTask(config: HasTasks, task: AnyTaskDefinition, origin: TaskOrigin): void {
  bound.set(config.tasks, { task, origin });
}

/** The definition `config` plays: the one its call resolved it with, else the built-in task of its name. */
export function taskOf(config: HasTasks): AnyTaskDefinition {
  const hit = bound.get(config.tasks);
  if (hit !== undefined) return hit.task;
  if (builtInTaskNames().includes(config.tasks.name)) return builtInTask(config.tasks.name);
  throw new TroupeError(
    'config',
    `task ${JSON.stringify(config.tasks.name)} is not a built-in task and this config was not resolved with its definition; resolve it with readConfig({ config, tasks: [yourTask] }) or name the task's file in tasks.module`,
  );
}

/** Where the task `config` plays came from: `built-in`, a module path, or `the tasks option`. */
export function taskOriginOf(config: HasTasks): TaskOrigin | undefined {
  const hit = bound.get(config.tasks);
  if (hit !== undefined) return hit.origin;
  return builtInTaskNames().includes(config.tasks.name) ? 'built-in' : undefined;
}
