/**
 * Every task Troupe can play, registered explicitly (no discovery): a config's `tasks.name`
 * must be one of these names. Adding a task is one import and one entry below
 * (docs/new-task.md).
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
type AnyTaskDefinition = TaskDefinition<Env, any>;

const registeredTasks: readonly AnyTaskDefinition[] = [planPathTask, sokobanTask, sudokuTask, toyTask, codeTask, coopCodeTask, mathTask];

export function taskNames(): string[] {
  return registeredTasks.map((task) => task.name);
}

/** The registered task called `name`; a config error listing the registered names otherwise. */
export function getTask(name: string): AnyTaskDefinition {
  const task = registeredTasks.find((t) => t.name === name);
  if (!task) {
    throw new TroupeError(
      'config',
      `tasks.name: unknown task ${JSON.stringify(name)}; registered tasks: ${taskNames().join(', ')}`,
    );
  }
  return task;
}
