/**
 * The config as TypeScript sees it, derived from the zod schema (config-schema.ts), so the
 * type, the runtime check, the defaults and docs/config.md never drift apart. Keys are the
 * YAML keys (snake_case); every key with a default may be left out.
 *
 * ```ts
 * import { defineConfig, train } from 'troupe';
 * const config = defineConfig({ tasks: { name: 'plan-path', size: 4 }, train: { steps: 20, lr: 1e-3 } });
 * await train({ config, overrides: { train: { steps: 40 } } });
 * ```
 */
import type { z } from 'zod';
import type { configSchema } from './config-schema.js';

type SchemaInput = z.input<typeof configSchema>;

/**
 * A whole config, as written in a YAML file. `tasks` may be left out when the call passes
 * exactly one task definition, and `tasks.name` when `tasks.module` names the task's module.
 * A misspelt key or a wrong value type is a compile error.
 */
export type TroupeConfig = Omit<SchemaInput, 'tasks'> & {
  readonly tasks?: Partial<SchemaInput['tasks']>;
};

/** Every key optional, at every depth: what overrides of a config may give. Arrays are replaced whole. */
export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** Overrides of a config, by section: `{ train: { steps: 40 } }` is `--set train.steps=40`. */
export type ConfigOverrides = DeepPartial<TroupeConfig>;

/**
 * Returns `config` as it is: its only job is the parameter type, so an editor completes and
 * checks a config object in a plain `.ts` file (as vite's defineConfig does).
 *
 * @example
 * ```ts
 * export default defineConfig({ algorithm: 'at-grpo', tasks: { name: 'plan-path' }, train: { steps: 40 } });
 * ```
 */
export function defineConfig(config: TroupeConfig): TroupeConfig {
  return config;
}
