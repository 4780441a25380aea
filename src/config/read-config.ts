/**
 * The one way a config becomes a resolved config when user tasks may be involved: a YAML/JSON
 * file or a plain object, `--set` overrides, the user's task definitions passed in code, and a
 * `tasks.module` to import (a path relative to the config file; its default export is the task
 * definition). They join the built-in tasks in a catalog of this call's own, so the rest of
 * Troupe sees a user task exactly as it sees a built-in one (taskOf(config)), and another call
 * in the same process may define a task of the same name differently.
 *
 * ```ts
 * const config = await readConfig({ config: 'run.yaml', set: ['train.steps=10'] });
 * ```
 */
import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtInCatalog, notATaskDefinition, type AnyTaskDefinition, type TaskCatalog } from '../envs/task-catalog.js';
import { TroupeError } from '../util/errors.js';
import { applyOverrides, parseOverride } from './apply-overrides.js';
import { flattenOverrides } from './flatten-overrides.js';
import { importTypeScript } from './import-typescript.js';
import type { ConfigOverrides, TroupeConfig } from './troupe-config.js';
import { parseConfigText } from './load-config.js';
import { resolveConfig, type ResolvedConfig } from './resolve-config.js';

export interface ConfigInput {
  /** A config file (YAML or JSON) or the config as an object. */
  readonly config: string | TroupeConfig;
  /** `key=value` overrides, as `--set` takes them. */
  readonly set?: readonly string[];
  /** Typed overrides by section (`{ train: { steps: 40 } }`), applied after `set`. */
  readonly overrides?: ConfigOverrides;
  /** Task definitions from code; with one task and no `tasks:` section, the config plays it. */
  readonly tasks?: readonly AnyTaskDefinition[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Imports a task module and returns its default export, checked to be a task definition. */
export async function importTaskModule(path: string, shown: string): Promise<AnyTaskDefinition> {
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Node without type stripping (20, 22 before 22.18): transpile it here.
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && ['.ts', '.mts'].includes(extname(path))) module = await importTypeScript(path, shown).catch((cause: unknown) => {
      throw cause instanceof TroupeError ? cause : new TroupeError('config', `tasks.module ${shown}: importing it failed: ${(cause as Error).message.split('\n')[0]}`, { cause });
    });
    else {
      const hint =
        code === 'ERR_MODULE_NOT_FOUND' && !/Cannot find package/.test(String((error as Error).message))
          ? `no such file ${path} (the path is relative to the config file)`
          : `importing it failed: ${(error as Error).message.split('\n')[0]}`;
      throw new TroupeError('config', `tasks.module ${shown}: ${hint}`, { cause: error });
    }
  }
  const problem = notATaskDefinition(module.default);
  if (problem !== undefined) throw new TroupeError('config', `tasks.module ${shown}: its default export is not a task definition: ${problem} (export default defineTask({...}))`);
  return module.default as AnyTaskDefinition;
}

/**
 * Reads, overrides, adds the call's tasks and resolves; every problem is one TroupeError line.
 *
 * @example
 * ```ts
 * const config = await readConfig({ config: 'relay.yaml', set: ['train.steps=10'] });
 * config.tasks; // { name: 'relay', module: '/abs/path/relay.js', digits: 10 }
 * ```
 */
export async function readConfig(input: ConfigInput): Promise<ResolvedConfig> {
  return readAndResolve(input, false);
}

/**
 * The config of a run folder (`runDir/config.yaml`, as `troupe train` wrote it), with `set`
 * overrides and the caller's tasks. Unlike a user's file, keys that do nothing in the run's
 * combination are not errors: the file spells out every default of the version that wrote it,
 * and a later version may have changed one (see ResolveOptions.savedRun).
 */
export async function readRunConfig(runDir: string, input: Omit<ConfigInput, 'config'> = {}): Promise<ResolvedConfig> {
  return readAndResolve({ ...input, config: join(runDir, 'config.yaml') }, true);
}

async function readAndResolve(input: ConfigInput, savedRun: boolean): Promise<ResolvedConfig> {
  // This call's own tasks: another call may define a task of the same name differently.
  const catalog: TaskCatalog = builtInCatalog();
  for (const task of input.tasks ?? []) catalog.add(task, 'the tasks option');
  const fromFile = typeof input.config === 'string';
  const source = fromFile ? (input.config as string) : 'config';
  let raw: unknown;
  if (fromFile) {
    let text: string;
    try {
      text = readFileSync(source, 'utf8');
    } catch (error) {
      throw new TroupeError('config', `cannot read config file ${source}: ${(error as Error).message}`, { cause: error });
    }
    raw = parseConfigText(text, source) ?? {};
  } else {
    raw = structuredClone(input.config);
  }
  const overrides = [...(input.set ?? []).map(parseOverride), ...flattenOverrides(input.overrides ?? {})];
  if (!isPlainObject(raw)) return resolveConfig(raw, { source, overrides, catalog, savedRun });
  let object = applyOverrides(raw, overrides);
  const only = input.tasks?.length === 1 ? input.tasks[0]! : undefined;
  if (object.tasks === undefined && only !== undefined) object = { ...object, tasks: { name: only.name } };
  const tasks = object.tasks;
  if (isPlainObject(tasks) && typeof tasks.module === 'string') {
    const baseDir = fromFile ? dirname(resolve(source)) : process.cwd();
    const path = isAbsolute(tasks.module) ? tasks.module : resolve(baseDir, tasks.module);
    const task = await importTaskModule(path, JSON.stringify(tasks.module));
    catalog.add(task, path);
    const name = task.name;
    if (tasks.name !== undefined && tasks.name !== name) {
      throw new TroupeError('config', `${source}: tasks.name ${JSON.stringify(tasks.name)} differs from the name of the task in tasks.module (${JSON.stringify(name)}); drop tasks.name`);
    }
    object = { ...object, tasks: { ...tasks, name, module: path } };
  }
  return resolveConfig(object, { source, overrides, catalog, savedRun });
}
