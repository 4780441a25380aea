/**
 * Validates a config object (already read from YAML/JSON, overrides applied) and returns it
 * fully resolved: every default filled, the task's own options validated by the registered
 * task's optionsSchema, team.max_turns defaulted to the task's defaultMaxTurns. All problems
 * are reported at once, each naming its key path.
 */
import { getTask, taskNames } from '../envs/registry.js';
import { TroupeError } from '../util/errors.js';
import { configSchema, type ParsedConfig } from './config-schema.js';
import { formatIssues } from './format-issues.js';
import type { RolloutMode } from '../rollout/types.js';

export type ResolvedConfig = Omit<ParsedConfig, 'name' | 'team' | 'tasks'> & {
  name: string;
  /** The task name and its options, defaults filled (validated by the task's optionsSchema). */
  tasks: { name: string } & Record<string, unknown>;
  team: ParsedConfig['team'] & { max_turns: number };
  rollout: ParsedConfig['rollout'] & { mode: RolloutMode };
};

/** The rollout mode each algorithm trains with. */
const modeOfAlgorithm: Record<ParsedConfig['algorithm'], RolloutMode> = {
  'at-grpo': 'tree',
  grpo: 'independent',
  magrpo: 'tree',
};

/** A `--set key=value` override, kept so errors can say which override caused them. */
export interface Override {
  readonly key: string;
  readonly value: unknown;
  readonly text: string;
}

export interface ResolveOptions {
  /** Where the object came from (a file path), for messages. */
  readonly source?: string;
  readonly overrides?: readonly Override[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function originOf(path: string, overrides: readonly Override[]): string {
  const hit = overrides.find(
    (o) => path === o.key || path.startsWith(`${o.key}.`) || path.startsWith(`${o.key}[`) || o.key.startsWith(`${path}.`),
  );
  return hit ? ` (from --set ${hit.text})` : '';
}

export function resolveConfig(object: unknown, options: ResolveOptions = {}): ResolvedConfig {
  const where = options.source ?? 'config';
  if (!isPlainObject(object)) {
    throw new TroupeError('config', `${where}: expected a mapping of sections (name, seed, tasks, team, ...) at the top level`);
  }
  const problems: Array<{ path: string; message: string }> = [];
  const parsed = configSchema.safeParse(object);
  if (!parsed.success) problems.push(...formatIssues(parsed.error.issues, object, configSchema));

  let tasks: ResolvedConfig['tasks'] | undefined;
  let defaultMaxTurns = 1;
  const rawTasks = object.tasks;
  if (isPlainObject(rawTasks) && typeof rawTasks.name === 'string') {
    const { name, ...rest } = rawTasks;
    if (!taskNames().includes(name)) {
      problems.push({ path: 'tasks.name', message: `unknown task ${JSON.stringify(name)}; registered tasks: ${taskNames().join(', ')}` });
    } else {
      const task = getTask(name);
      defaultMaxTurns = task.defaultMaxTurns;
      const options = task.optionsSchema.safeParse(rest);
      if (options.success) tasks = { name, ...(options.data as Record<string, unknown>) };
      else problems.push(...formatIssues(options.error.issues, rest, task.optionsSchema, ['tasks']));
    }
  }

  if (parsed.success) {
    const { algorithm, rollout } = parsed.data;
    if (rollout.mode !== undefined && algorithm !== 'magrpo' && rollout.mode !== modeOfAlgorithm[algorithm]) {
      problems.push({
        path: 'rollout.mode',
        message: `algorithm ${algorithm} samples with mode ${modeOfAlgorithm[algorithm]}, got ${JSON.stringify(rollout.mode)}; drop rollout.mode or use algorithm ${rollout.mode === 'tree' ? 'at-grpo' : 'grpo'}`,
      });
    }
  }

  if (problems.length > 0 || !parsed.success || !tasks) {
    const overrides = options.overrides ?? [];
    const lines = problems.map((p) => `${p.path}: ${p.message}${originOf(p.path, overrides)}`);
    const body = lines.length === 1 ? lines[0] : `${lines.length} problems:\n  ${lines.join('\n  ')}`;
    throw new TroupeError('config', `${where}: ${body}`);
  }
  const { name, ...config } = parsed.data;
  return {
    name: name ?? tasks.name,
    ...config,
    tasks,
    team: { ...config.team, max_turns: config.team.max_turns ?? defaultMaxTurns },
    rollout: { ...config.rollout, mode: config.rollout.mode ?? modeOfAlgorithm[config.algorithm] },
  };
}

