/**
 * Every task Troupe can play, by name: the built-in tasks and the user's own, registered the
 * same way (`registerTask`), explicitly, with no discovery. A config's `tasks.name` must be one
 * of these names; a config's `tasks.module` and the `tasks` option of train/evaluate/rollout
 * register the user's definitions before the config is resolved (src/config/read-config.ts).
 */
import { TroupeError } from '../util/errors.js';
import { codeTask } from './code/index.js';
import { coopCodeTask } from './coop-code/index.js';
import { mathTask } from './math/index.js';
import { planPathTask } from './plan-path/index.js';
import { sokobanTask } from './sokoban/index.js';
import { sudokuTask } from './sudoku/index.js';
import { toyTask } from './toy/index.js';
import type { Env, TaskDefinition } from './types.js';

// Options differ per task; the registry erases them and configs validate them per task.
export type AnyTaskDefinition = TaskDefinition<Env, any>;

interface Registered {
  readonly task: AnyTaskDefinition;
  /** Where the definition came from, for messages: `built-in`, a module path, `train({ tasks })`. */
  readonly origin: string;
}

const registered = new Map<string, Registered>();

const TASK_FUNCTIONS = ['createSource', 'createTeam', 'scripted'] as const;

/** One line naming what is missing when `value` is not a task definition; undefined when it is one. */
export function notATaskDefinition(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return `expected a task definition (defineTask({...})), got ${value === null ? 'null' : typeof value}`;
  const task = value as Record<string, unknown>;
  if (typeof task.name !== 'string' || !/^[a-z0-9][a-z0-9-_]*$/i.test(task.name)) {
    return `a task definition needs a name of letters, digits, - and _ (got ${JSON.stringify(task.name)})`;
  }
  const missing = TASK_FUNCTIONS.filter((key) => typeof task[key] !== 'function');
  if (missing.length > 0) return `task ${JSON.stringify(task.name)} has no ${missing.join(', ')}; build it with defineTask({...})`;
  return undefined;
}

/**
 * Makes `task` playable by name. Registering the same definition again is a no-op; another
 * definition under a taken name is a config error naming both origins.
 */
export function registerTask(task: AnyTaskDefinition, origin: string): void {
  const problem = notATaskDefinition(task);
  if (problem !== undefined) throw new TroupeError('config', `${origin}: ${problem}`);
  const existing = registered.get(task.name);
  if (existing?.task === task) return;
  if (existing !== undefined) {
    const taken = existing.origin === 'built-in' ? 'the built-in task' : `the task from ${existing.origin}`;
    throw new TroupeError('config', `${origin}: task name ${JSON.stringify(task.name)} clashes with ${taken} of that name; give your task another name in defineTask({ name })`);
  }
  registered.set(task.name, { task, origin });
}

for (const task of [planPathTask, sokobanTask, sudokuTask, toyTask, codeTask, coopCodeTask, mathTask]) registerTask(task, 'built-in');

export function taskNames(): string[] {
  return [...registered.keys()];
}

/** The registered task called `name`; a config error listing the registered names otherwise. */
export function getTask(name: string): AnyTaskDefinition {
  const hit = registered.get(name);
  if (!hit) {
    throw new TroupeError(
      'config',
      `tasks.name: unknown task ${JSON.stringify(name)}; registered tasks: ${taskNames().join(', ')} (a task of your own: tasks.module, or pass it to train({ tasks }))`,
    );
  }
  return hit.task;
}

/** Where the task called `name` came from (`built-in`, a module path, ...). */
export function taskOrigin(name: string): string | undefined {
  return registered.get(name)?.origin;
}
