/**
 * Validates a config object (already read from YAML/JSON, overrides applied) and returns it
 * fully resolved: every default filled, the task's own options validated by the chosen
 * task's optionsSchema, team.max_turns defaulted to the task's defaultMaxTurns. All problems
 * are reported at once, each naming its key path.
 */
import { builtInCatalog, type TaskCatalog } from '../envs/task-catalog.js';
import { bindTask } from './task-of-config.js';
import { TroupeError } from '../util/errors.js';
import { configSchema, type ParsedConfig } from './config-schema.js';
import { formatIssues } from './format-issues.js';
import { ignoredKeys, resetToDefaults } from './ignored-keys.js';
import { resolveJointOptions } from '../rollout/joint-options.js';
import { LORA_LR_SCALE, trainsLora } from './lora-lr.js';
import type { JointOptions, RolloutMode } from '../rollout/types.js';

export type ResolvedConfig = Omit<ParsedConfig, 'name' | 'team' | 'tasks'> & {
  name: string;
  /**
   * The task name and its options, defaults filled (validated by the task's optionsSchema);
   * `module`: the absolute path of the user's task module, when the config named one.
   */
  tasks: { name: string; module?: string } & Record<string, unknown>;
  team: ParsedConfig['team'] & { max_turns: number };
  rollout: ParsedConfig['rollout'] & { mode: RolloutMode };
  /** Defaults filled, `expand` included (all for aligned, best for cross). */
  magrpo: JointOptions;
};

/** The rollout mode each algorithm trains with (and requires). */
const modeOfAlgorithm: Record<ParsedConfig['algorithm'], RolloutMode> = {
  'at-grpo': 'tree',
  grpo: 'independent',
  magrpo: 'joint',
};

const algorithmOfMode: Record<RolloutMode, ParsedConfig['algorithm']> = {
  tree: 'at-grpo',
  independent: 'grpo',
  joint: 'magrpo',
};

/**
 * Defaults that depend on the algorithm, applied only when the file leaves the key out:
 * MAGRPO plays the roles in parallel (the only order joint rollouts play) and trains with its
 * original loss, -logprob * A without a ratio (SEEDS.md section 2).
 */
const algorithmDefaults: Record<ParsedConfig['algorithm'], { order?: 'parallel'; loss?: 'reinforce' }> = {
  'at-grpo': {},
  grpo: {},
  magrpo: { order: 'parallel', loss: 'reinforce' },
};

/** Whether the raw config object sets `section.key`. */
function sets(object: Record<string, unknown>, section: string, key: string): boolean {
  const value = object[section];
  return isPlainObject(value) && value[key] !== undefined;
}

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
  /** The tasks `tasks.name` may name: the built-in tasks unless the caller adds its own (readConfig does). */
  readonly catalog?: TaskCatalog;
  /**
   * The object is a run folder's config.yaml (written by Troupe, every default spelt out): keys
   * that do nothing in its combination are reset to their defaults instead of being errors.
   * Keys given by `overrides` are still checked.
   */
  readonly savedRun?: boolean;
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
  const catalog = options.catalog ?? builtInCatalog();
  const problems: Array<{ path: string; message: string }> = [];
  const parsed = configSchema.safeParse(object);
  if (!parsed.success) problems.push(...formatIssues(parsed.error.issues, object, configSchema));

  let tasks: ResolvedConfig['tasks'] | undefined;
  let defaultMaxTurns = 1;
  const rawTasks = object.tasks;
  if (isPlainObject(rawTasks) && typeof rawTasks.module === 'string' && typeof rawTasks.name !== 'string') {
    problems.push({ path: 'tasks.module', message: `${JSON.stringify(rawTasks.module)} is imported by readConfig (the troupe command and train/evaluate/rollout do it); this loader cannot import modules` });
  }
  if (isPlainObject(rawTasks) && typeof rawTasks.name === 'string') {
    const { name, module, ...rest } = rawTasks;
    if (!catalog.has(name)) {
      problems.push({ path: 'tasks.name', message: `unknown task ${JSON.stringify(name)}; known tasks: ${catalog.names().join(', ')} (a task of your own: tasks.module: ./my-task.mjs)` });
    } else {
      const task = catalog.get(name);
      defaultMaxTurns = task.defaultMaxTurns;
      const options = task.optionsSchema.safeParse(rest);
      if (options.success) tasks = { name, ...(typeof module === 'string' ? { module } : {}), ...(options.data as Record<string, unknown>) };
      else problems.push(...formatIssues(options.error.issues, rest, task.optionsSchema, ['tasks']));
    }
  }

  let setAside: string[] = [];
  if (parsed.success) {
    const { algorithm, rollout, team, policy, model, warm_start, train, magrpo, advantage } = parsed.data;
    if (rollout.mode !== undefined && rollout.mode !== modeOfAlgorithm[algorithm]) {
      problems.push({
        path: 'rollout.mode',
        message: `algorithm ${algorithm} samples with mode ${modeOfAlgorithm[algorithm]}, got ${JSON.stringify(rollout.mode)}; drop rollout.mode or use algorithm ${algorithmOfMode[rollout.mode]}`,
      });
    }
    if (rollout.continue !== 'best' && modeOfAlgorithm[algorithm] !== 'tree') {
      problems.push({
        path: 'rollout.continue',
        message: `only tree sampling (algorithm at-grpo) picks a branch to continue, got ${JSON.stringify(rollout.continue)} with algorithm ${algorithm}; drop rollout.continue`,
      });
    }
    if (algorithm !== 'magrpo' && object.magrpo !== undefined) {
      problems.push({
        path: 'magrpo',
        message: `the magrpo section only applies to algorithm magrpo, got algorithm ${algorithm}; remove the section or set algorithm: magrpo`,
      });
    }
    if (algorithm === 'magrpo' && sets(object, 'team', 'order') && team.order !== 'parallel') {
      problems.push({
        path: 'team.order',
        message: `algorithm magrpo plays the roles in parallel (each samples G responses from its own prompt), got ${JSON.stringify(team.order)}; set team.order: parallel or drop the key`,
      });
    }
    const values = {
      algorithm,
      advantage,
      policy,
      model,
      warm_start,
      team,
      train: { ...train, loss: resolvedLoss(object, algorithm, train.loss) },
      magrpo: algorithm === 'magrpo' ? resolveJointOptions(magrpo) : undefined,
    };
    const ignored = ignoredKeys(object, values, { overrides: options.overrides ?? [], orderDefault: algorithmDefaults[algorithm].order ?? 'sequential', savedRun: options.savedRun === true });
    problems.push(...ignored.problems);
    setAside = ignored.setAside;
  }

  if (problems.length > 0 || !parsed.success || !tasks) {
    const overrides = options.overrides ?? [];
    const lines = problems.map((p) => `${p.path}: ${p.message}${originOf(p.path, overrides)}`);
    const body = lines.length === 1 ? lines[0] : `${lines.length} problems:\n  ${lines.join('\n  ')}`;
    throw new TroupeError('config', `${where}: ${body}`);
  }
  const { name, ...config } = resetToDefaults(parsed.data, setAside);
  const defaults = algorithmDefaults[config.algorithm];
  bindTask({ tasks }, catalog.get(tasks.name), catalog.origin(tasks.name)!);
  return {
    name: name ?? tasks.name,
    ...config,
    tasks,
    team: {
      ...config.team,
      order: defaults.order !== undefined && !sets(object, 'team', 'order') ? defaults.order : config.team.order,
      max_turns: config.team.max_turns ?? defaultMaxTurns,
    },
    rollout: { ...config.rollout, mode: config.rollout.mode ?? modeOfAlgorithm[config.algorithm] },
    magrpo: resolveJointOptions(config.magrpo),
    train: { ...config.train, loss: resolvedLoss(object, config.algorithm, config.train.loss), ...loraScale(config) },
  };
}

/**
 * A LoRA run without its own rate spells the rule's factor out, so its config.yaml says how
 * its rate was chosen (and a run saved before the rule existed is not resumed under it).
 */
function loraScale(config: Pick<ParsedConfig, 'policy' | 'train'>): { lora_lr_scale?: number } {
  const t = config.train;
  return trainsLora(config.policy) && t.lora_lr === undefined && t.lora_lr_scale === undefined ? { lora_lr_scale: LORA_LR_SCALE } : {};
}

/** train.loss as set, else the algorithm's default loss. */
function resolvedLoss(object: Record<string, unknown>, algorithm: ParsedConfig['algorithm'], loss: ParsedConfig['train']['loss']) {
  const byAlgorithm = algorithmDefaults[algorithm].loss;
  return byAlgorithm !== undefined && !sets(object, 'train', 'loss') ? byAlgorithm : loss;
}

