/**
 * Which tasks one call can play, by name: the built-in tasks plus the definitions that call was
 * given (its `tasks` option, its config's `tasks.module`). Every train/evaluate/rollout call
 * builds its own catalog, so two calls in one process may each define a task called `relay`
 * differently, at the same time; nothing is registered process-wide. Tasks are added
 * explicitly, with no discovery.
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

// Options differ per task; the catalog erases them and configs validate them per task.
export type AnyTaskDefinition = TaskDefinition<Env, any>;

/** Where a definition came from, for messages: `built-in`, a module path, `the tasks option`. */
export type TaskOrigin = string;

const TASK_FUNCTIONS = ['createSource', 'createTeam', 'scripted'] as const;

/**
 * The origin each user definition was first added with, keyed by the definition itself (not its
 * name, which two calls may share), so a task's own errors can say which file it came from.
 */
const definitionOrigins = new WeakMap<AnyTaskDefinition, TaskOrigin>();

/** Where `definition` was loaded from, when a catalog has seen it. */
export function originOfDefinition(definition: AnyTaskDefinition): TaskOrigin | undefined {
  return definitionOrigins.get(definition);
}

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

interface Entry {
  readonly task: AnyTaskDefinition;
  readonly origin: TaskOrigin;
}

export class TaskCatalog {
  private readonly entries = new Map<string, Entry>();

  /**
   * Makes `task` playable by name in this catalog. Adding the same definition again is a
   * no-op; another definition under a taken name is a config error naming both origins.
   */
  add(task: AnyTaskDefinition, origin: TaskOrigin): void {
    const problem = notATaskDefinition(task);
    if (problem !== undefined) throw new TroupeError('config', `${origin}: ${problem}`);
    const existing = this.entries.get(task.name);
    if (existing?.task === task) return;
    if (existing !== undefined) {
      const taken = existing.origin === 'built-in' ? 'the built-in task' : `the task from ${existing.origin}`;
      throw new TroupeError('config', `${origin}: task name ${JSON.stringify(task.name)} clashes with ${taken} of that name; give your task another name in defineTask({ name })`);
    }
    this.entries.set(task.name, { task, origin });
    if (origin !== 'built-in' && !definitionOrigins.has(task)) definitionOrigins.set(task, origin);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The task called `name`; a config error listing the names this catalog has otherwise. */
  get(name: string): AnyTaskDefinition {
    const hit = this.entries.get(name);
    if (!hit) {
      throw new TroupeError(
        'config',
        `tasks.name: unknown task ${JSON.stringify(name)}; known tasks: ${this.names().join(', ')} (a task of your own: tasks.module, or pass it to train({ tasks }))`,
      );
    }
    return hit.task;
  }

  /** Where the task called `name` came from (`built-in`, a module path, ...). */
  origin(name: string): TaskOrigin | undefined {
    return this.entries.get(name)?.origin;
  }
}

const BUILT_IN = [planPathTask, sokobanTask, sudokuTask, toyTask, codeTask, coopCodeTask, mathTask] as const;

/** A fresh catalog holding the built-in tasks, for one call to add its own tasks to. */
export function builtInCatalog(): TaskCatalog {
  const catalog = new TaskCatalog();
  for (const task of BUILT_IN) catalog.add(task, 'built-in');
  return catalog;
}

/** The built-in tasks' names, in the order `troupe tasks` lists them. */
export function builtInTaskNames(): string[] {
  return BUILT_IN.map((task) => task.name);
}

const builtIns = builtInCatalog();

/** The built-in task called `name`; a config error listing the built-in names otherwise. */
export function builtInTask(name: string): AnyTaskDefinition {
  return builtIns.get(name);
}
