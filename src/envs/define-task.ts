/**
 * `defineTask`: a task from the user's own code, without touching Troupe. The user gives the
 * interaction (a task source, roles, the team reward) and optionally a scripted player; this
 * file turns it into the TaskDefinition every task offers (src/envs/types.ts) and guards the
 * user's functions, so a role that throws or a prompt that is not deterministic is reported as
 * that task's fault, naming the role, the call, the task instance and the turn.
 */
import type { z } from 'zod';
import { TroupeError } from '../util/errors.js';
import { optionsFromDefaults, type OptionValue } from './options-from-defaults.js';
import { originOfDefinition } from './task-catalog.js';
import type { Env, ParseResult, ReferenceResponder, Role, ScriptedResponder, TaskDefinition, TaskSource, Team, TurnContext } from './types.js';

/**
 * What `team(options)` returns: the roles in turn order and the team's (global) reward.
 *
 * @example
 * ```ts
 * team: () => ({ roles: [see, go], globalReward: (env) => (env.success ? 1 : 0) }),
 * ```
 */
export interface TeamSpec<E extends Env> {
  readonly roles: ReadonlyArray<Role<E, any>>;
  /** The team reward of a state, e.g. 1 when solved. Pure function of the env. */
  globalReward(env: E): number;
}

/**
 * The input of `defineTask`. `O` is the task's options type (inferred from `options`).
 * docs/new-task.md shows a complete one (examples/relay/relay.ts).
 */
export interface TaskSpec<E extends Env, O extends object> {
  /** The name configs use (`tasks: { name }`); letters, digits, - and _. */
  readonly name: string;
  /** One line for messages and docs. */
  readonly description?: string;
  /** The task's options with their defaults (plain values; set in a config under `tasks:`). */
  readonly options?: O & Record<string, OptionValue>;
  /** Or a zod schema with defaults, for richer options (`z` is re-exported by troupe). */
  readonly optionsSchema?: z.ZodType<O>;
  /** Turn limit used when the config does not set team.max_turns. */
  readonly maxTurns: number;
  /** Task instances: `make(index, split)` must give an equal fresh env for equal arguments. */
  source(options: O, seed: number): TaskSource<E>;
  /** The team: roles (turn order and rewards come from the config's `team:` section). */
  team(options: O): TeamSpec<E>;
  /** A model-free player for the warm start's demonstrations and `policy.kind: scripted`. */
  readonly scripted?: ScriptedResponder;
  /** The dataset's own answers, for `policy.kind: reference`. */
  reference?(options: O, seed: number): ReferenceResponder;
}

/**
 * A task as its errors name it: its name, and where its definition was loaded from (known once
 * a call has added it; two definitions may share a name, so the origin is looked up by definition).
 */
interface TaskLabel {
  readonly name: string;
  origin(): string | undefined;
}

/** The task error for a user's function that threw or broke its contract. */
function taskFault(task: TaskLabel, what: string, detail: string, cause?: unknown): TroupeError {
  const origin = task.origin();
  const from = origin === undefined || origin === 'built-in' ? '' : ` (from ${origin})`;
  return new TroupeError('task', `task ${JSON.stringify(task.name)}${from}, ${what}: ${detail}`, cause === undefined ? undefined : { cause });
}

function guarded<T>(task: TaskLabel, what: () => string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof TroupeError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw taskFault(task, what(), `threw ${JSON.stringify(message)}. Fix the task's code: bad model output is data (parse returns { ok: false }, step returns a failure), never an exception`, error);
  }
}

function at(env: Env, ctx: TurnContext): string {
  return `on ${env.taskId} at turn ${ctx.turn}`;
}

/** The user's role with every call guarded, and its prompt checked against a clone of the state. */
function guardRole<E extends Env>(task: TaskLabel, role: Role<E, any>): Role<E, any> {
  const name = JSON.stringify(role.name);
  const guardedRole: Role<E, any> = {
    name: role.name,
    prompt(env, ctx) {
      const text = guarded(task, () => `role ${name}: prompt() ${at(env, ctx)}`, () => role.prompt(env, ctx));
      if (typeof text !== 'string') throw taskFault(task, `role ${name}: prompt() ${at(env, ctx)}`, `returned ${typeof text}; a prompt is a string`);
      const again = guarded(task, () => `role ${name}: prompt() on a clone ${at(env, ctx)}`, () => role.prompt(env.clone(), ctx));
      if (again !== text) {
        throw taskFault(
          task,
          `role ${name}: prompt() ${at(env, ctx)}`,
          `a clone of the same state gave another prompt (${JSON.stringify(text.slice(0, 60))} vs ${JSON.stringify(String(again).slice(0, 60))}); a prompt must depend on the env alone (no Math.random, no clock) and clone() must copy everything prompt() reads`,
        );
      }
      return text;
    },
    parse(text): ParseResult<unknown> {
      const result = guarded(task, () => `role ${name}: parse(${JSON.stringify(text.slice(0, 40))})`, () => role.parse(text));
      if (result === null || typeof result !== 'object' || typeof (result as { ok?: unknown }).ok !== 'boolean') {
        throw taskFault(task, `role ${name}: parse(${JSON.stringify(text.slice(0, 40))})`, `returned ${JSON.stringify(result)}; return { ok: true, action } or { ok: false, reason }`);
      }
      return result;
    },
    step(env, action, ctx) {
      const outcome = guarded(task, () => `role ${name}: step() ${at(env, ctx)}`, () => role.step(env, action, ctx));
      if (outcome === null || typeof outcome !== 'object' || !Number.isFinite(outcome.local)) {
        throw taskFault(task, `role ${name}: step() ${at(env, ctx)}`, `returned ${JSON.stringify(outcome)}; return { local: <a finite number> } (plus failure or info)`);
      }
      return outcome;
    },
  };
  const prepare = role.prepare;
  if (prepare === undefined) return guardedRole;
  return {
    ...guardedRole,
    async prepare(env, action, ctx) {
      try {
        await prepare.call(role, env, action, ctx);
      } catch (error) {
        if (error instanceof TroupeError) throw error;
        throw taskFault(task, `role ${name}: prepare() ${at(env, ctx)}`, `threw ${JSON.stringify(error instanceof Error ? error.message : String(error))}; fix the task's code`, error);
      }
    },
  };
}

function guardSource<E extends Env>(task: TaskLabel, source: TaskSource<E>): TaskSource<E> {
  return {
    ...(source.size === undefined ? {} : { size: source.size }),
    make(index, split) {
      const env = guarded(task, () => `source.make(${index}, ${JSON.stringify(split)})`, () => source.make(index, split));
      if (env === null || typeof env !== 'object' || typeof env.taskId !== 'string' || typeof env.clone !== 'function') {
        throw taskFault(task, `source.make(${index}, ${JSON.stringify(split)})`, 'returned no env; an env has a string taskId, done, success and clone()');
      }
      return env;
    },
  };
}

/**
 * Defines a task from the agents' interaction and the rewards. Pass the result to
 * `train({ tasks: [...] })`, or make it a module's default export and name the module in a
 * config (`tasks: { module: ./guess.mjs }`).
 *
 * @example
 * ```ts
 * import { defineTask, Rng } from 'troupe';
 * export default defineTask({
 *   name: 'guess',
 *   options: { max: 9 },
 *   maxTurns: 1,
 *   source: (options, seed) => ({ make: (i, split) => new GuessEnv(`guess/${split}/${i}`, Rng.derive(seed, split, i).int(options.max + 1)) }),
 *   team: () => ({ roles: [hint, guess], globalReward: (env) => (env.success ? 1 : 0) }),
 *   scripted: ({ role, prompt }) => solve(role, prompt),
 * });
 * ```
 */
export function defineTask<E extends Env, O extends object = Record<string, never>>(spec: TaskSpec<E, O>): TaskDefinition<E, O> {
  const name = spec.name;
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-_]*$/i.test(name)) {
    throw new TroupeError('task', `defineTask: name must be letters, digits, - and _ (got ${JSON.stringify(name)})`);
  }
  if (!Number.isInteger(spec.maxTurns) || spec.maxTurns < 1) {
    throw new TroupeError('task', `defineTask ${JSON.stringify(name)}: maxTurns must be a whole number >= 1, got ${JSON.stringify(spec.maxTurns)}`);
  }
  if (spec.options !== undefined && spec.optionsSchema !== undefined) {
    throw new TroupeError('task', `defineTask ${JSON.stringify(name)}: give options (plain defaults) or optionsSchema (zod), not both`);
  }
  const label: TaskLabel = { name, origin: () => originOfDefinition(definition) };
  const optionsSchema: z.ZodType<O> = spec.optionsSchema ?? (optionsFromDefaults((spec.options ?? {}) as Record<string, OptionValue>) as unknown as z.ZodType<O>);
  const teamOf = (options: O): TeamSpec<E> => {
    const team = guarded(label, () => 'team(options)', () => spec.team(options));
    if (team === null || typeof team !== 'object' || !Array.isArray(team.roles) || team.roles.length === 0 || typeof team.globalReward !== 'function') {
      throw taskFault(label, 'team(options)', 'must return { roles: [at least one role], globalReward(env) }');
    }
    const names = team.roles.map((r) => r.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) throw taskFault(label, 'team(options)', `two roles are named ${JSON.stringify(twice)}; role names must be unique`);
    return team;
  };
  const scripted: ScriptedResponder =
    spec.scripted === undefined
      ? () => {
          throw taskFault(label, 'scripted player', 'the task has none, and the warm start (or policy.kind: scripted) needs one: give defineTask a scripted({ role, prompt, skill, rng }), or set warm_start.enabled: false');
        }
      : (options) => guarded(label, () => `scripted player for role ${JSON.stringify(options.role)}`, () => spec.scripted!(options));
  const definition: TaskDefinition<E, O> = {
    name,
    description: spec.description ?? `${name} (a user task)`,
    optionsSchema,
    defaultMaxTurns: spec.maxTurns,
    get teamRoles(): readonly string[] {
      return teamOf(optionsSchema.parse({})).roles.map((r) => r.name);
    },
    createSource: (options, seed) => guardSource(label, guarded(label, () => 'source(options, seed)', () => spec.source(options, seed))),
    createTeam(options, team): Team<E> {
      if (team.variant !== 'team') {
        throw new TroupeError('config', `team.variant: task ${JSON.stringify(name)} defines its team's roles only, got ${JSON.stringify(team.variant)}; set team.variant: team`);
      }
      const spec = teamOf(options);
      return {
        name,
        roles: spec.roles.map((role) => guardRole(label, role)),
        order: team.order,
        maxTurns: team.maxTurns,
        alpha: team.alpha,
        globalReward: (env) => {
          const reward = guarded(label, () => `globalReward() on ${env.taskId}`, () => spec.globalReward(env));
          if (!Number.isFinite(reward)) throw taskFault(label, `globalReward() on ${env.taskId}`, `returned ${JSON.stringify(reward)}; return a finite number`);
          return reward;
        },
      };
    },
    scripted,
    ...(spec.reference === undefined ? {} : { createReference: (options: O, seed: number) => guarded(label, () => 'reference(options, seed)', () => spec.reference!(options, seed)) }),
  };
  return definition;
}
