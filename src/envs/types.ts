/**
 * The task-side vocabulary of Troupe, exported by the package root. Read this file first.
 *
 * A *task* is one seeded problem instance; its *Env* is the live state of that task during an
 * episode. A *Role* is one agent of a team: it turns the env into a prompt, the model's text
 * into an action, and applies that action, earning a local reward. A *Team* fixes the roles,
 * their order, the turn limit and how local and global rewards mix. Nothing here knows which
 * policy (model) plays a role.
 *
 * Writing a new task takes exactly: a TaskSource (generator or dataset reader), an Env class
 * (state + transitions + clone), one Role per agent, and the Team's global reward;
 * `defineTask` (define-task.ts) assembles them. docs/new-task.md walks through a complete example.
 */
import type { Rng } from '../util/rng.js';

/**
 * The outcome of parsing model text into an action. A failure is data, never an exception.
 *
 * @example
 * ```ts
 * const digit = (text: string): ParseResult<number> =>
 *   /^\d/.test(text) ? { ok: true, action: Number(text[0]) } : { ok: false, reason: 'expected a digit' };
 * ```
 */
export type ParseResult<A> = { ok: true; action: A } | { ok: false; reason: string };

/**
 * Where in the episode a role is acting. Turns are 0-based.
 *
 * @example
 * ```ts
 * prompt: (env, ctx) => `TURN ${ctx.turn + 1} OF ${ctx.maxTurns}\n${render(env)}`,
 * ```
 */
export interface TurnContext {
  readonly turn: number;
  readonly maxTurns: number;
}

/**
 * Live state of one task. Tree sampling clones it once per branch, so `clone()` must be a deep
 * copy sharing no mutable state with the original (immutable task data may be shared).
 *
 * @example
 * ```ts
 * class GuessEnv implements Env {
 *   answer = -1;
 *   constructor(readonly taskId: string, readonly secret: number) {}
 *   get done() { return this.answer >= 0; }
 *   get success() { return this.answer === this.secret; }
 *   clone(): this { return Object.assign(new GuessEnv(this.taskId, this.secret), { answer: this.answer }) as this; }
 * }
 * ```
 */
export interface Env {
  /** Stable id of the task instance, e.g. `plan-path/train/17`. */
  readonly taskId: string;
  /** The episode is over (solved, or failed for good). The turn limit is the Team's business. */
  readonly done: boolean;
  /** The task is solved. */
  readonly success: boolean;
  clone(): this;
}

/** What applying one action did. */
export interface StepOutcome {
  /** This role's own reward for the action (its "local" reward; the team's is Team.globalReward). */
  readonly local: number;
  /**
   * Why the action went wrong when it did (unparseable text, invalid move, failed tool run).
   * Counted and reported by the rollout; the action itself still happened (it may be a no-op).
   */
  readonly failure?: string;
  /** Free-form facts for logs and tests (moves applied, walls hit, ...). JSON-serialisable. */
  readonly info?: Readonly<Record<string, unknown>>;
}

/**
 * One agent of a team. `prompt` and `step` must be deterministic functions of their inputs:
 * the rollout relies on identical prompts for identical states (GRPO groups) and on clones
 * behaving exactly like the original.
 *
 * @example
 * ```ts
 * const guesser: Role<GuessEnv, number> = {
 *   name: 'GUESS',
 *   prompt: () => 'GUESS A DIGIT\nA:',
 *   parse: digit,
 *   step: (env, action) => ((env.answer = action.ok ? action.action : 10), { local: action.ok ? 0 : -0.1 }),
 * };
 * ```
 */
export interface Role<E extends Env, A = unknown> {
  readonly name: string;
  /** The prompt text for this role in this state. Sees earlier roles' actions via the env. */
  prompt(env: E, ctx: TurnContext): string;
  /** Reads an action from model text. Never throws on bad text: returns `{ ok: false }`. */
  parse(text: string): ParseResult<A>;
  /**
   * Applies the action to `env` (mutating it) and returns the local reward. Also called for a
   * failed parse, so the role can apply its penalty and record the failure where later prompts
   * show it.
   */
  step(env: E, action: ParseResult<A>, ctx: TurnContext): StepOutcome;
  /**
   * Optional slow work `step` needs first, such as running model-written code in the sandbox
   * or asking an outside model for advice. Rollouts await `prepare(env, action, ctx)` right
   * before every `step` with the same arguments (concurrently across the branches of a node,
   * each on its own env). It must not change `env`: it leaves its results where `step` finds
   * them (e.g. a cache shared by the task's envs, keyed by the program), so `step` stays
   * synchronous and a replay of the same actions finds the results again.
   */
  prepare?(env: E, action: ParseResult<A>, ctx: TurnContext): Promise<void>;
}

export type TurnOrder = 'sequential' | 'parallel';

/**
 * The roles and the rules of play. In `sequential` order each role acts on the state its
 * predecessors in the same turn left (and sees their actions); in `parallel` order every role
 * builds its prompt from the state at the start of the turn and the actions are then applied
 * in role order.
 */
export interface Team<E extends Env> {
  readonly name: string;
  /** Roles in turn order. Role names are unique within a team. */
  readonly roles: ReadonlyArray<Role<E, any>>;
  readonly order: TurnOrder;
  readonly maxTurns: number;
  /** Weight of the global reward in each agent's reward: total = local + alpha * global. */
  readonly alpha: number;
  /** The team (global) reward of a state, e.g. 1 when solved plus shaping. Pure function. */
  globalReward(env: E): number;
}

export type Split = 'train' | 'eval';

/**
 * Where tasks come from: a seeded generator (unbounded) or a dataset (finite). `make` is
 * deterministic: the same (index, split) always gives an equal fresh env. Train and eval
 * splits must not share instances, so evaluation is on tasks training never saw.
 *
 * @example
 * ```ts
 * const source: TaskSource<GuessEnv> = {
 *   make: (index, split) => new GuessEnv(`guess/${split}/${index}`, Rng.derive(seed, 'guess', split, index).int(10)),
 * };
 * ```
 */
export interface TaskSource<E extends Env> {
  /** Number of tasks for a finite dataset; undefined for an unbounded generator. */
  readonly size?: number;
  make(index: number, split: Split): E;
}

/**
 * A scripted (model-free) player: reads only the prompt, like a model would.
 *
 * @example
 * ```ts
 * const scripted: ScriptedResponder = ({ prompt, skill, rng }) =>
 *   String(rng.next() < skill ? solve(prompt) : rng.int(10));
 * ```
 */
export type ScriptedResponder = (options: {
  role: string;
  prompt: string;
  /** 0 = uniformly random actions, 1 = always the solver's optimal action. */
  skill: number;
  rng: Rng;
}) => string;

/**
 * The dataset's own answer to a prompt (`policy.kind: reference`): like a ScriptedResponder it
 * reads only the prompt (tasks that offer it put their task id in every prompt), but it has
 * the task source behind it, so it can answer with the dataset's solution.
 */
export type ReferenceResponder = (options: { role: string; prompt: string }) => string;

/** How a task's team is assembled from a config. */
export interface TeamOptions {
  /** `team`: the task's roles (e.g. tool then plan); `single`: one role named `agent`. */
  readonly variant: 'team' | 'single';
  /**
   * `natural`: instructions a real LLM follows; `compact`: short, token-efficient
   * observations and actions for the small embedded models.
   */
  readonly format: 'natural' | 'compact';
  readonly order: TurnOrder;
  readonly maxTurns: number;
  readonly alpha: number;
}

/**
 * Everything Troupe needs to offer a task: the built-in tasks are written this way and
 * listed in src/envs/task-catalog.ts; a user's task is made by `defineTask`, which fills it in.
 * `Options` are the task's own config keys (under `tasks:` in a config, next to `name`).
 *
 * @example
 * ```ts
 * const task: TaskDefinition<GuessEnv, { max: number }> = defineTask({ name: 'guess', options: { max: 9 }, maxTurns: 1, source, team, scripted });
 * task.optionsSchema.parse({}); // { max: 9 }
 * ```
 */
export interface TaskDefinition<E extends Env = Env, Options extends object = object> {
  readonly name: string;
  /** One line for `--help` and docs. */
  readonly description: string;
  /** Strict zod schema of the task's options with defaults, e.g. { size: 10 }. */
  readonly optionsSchema: import('zod').ZodType<Options>;
  /** Turn limit used when the config does not set team.max_turns. */
  readonly defaultMaxTurns: number;
  /** Role names of the `team` variant, in turn order. */
  readonly teamRoles: readonly string[];
  createSource(options: Options, seed: number): TaskSource<E>;
  /** Throws a TroupeError('config') for combinations the task cannot play. */
  createTeam(options: Options, team: TeamOptions): Team<E>;
  /** The model-free player used by `policy.kind: scripted`. */
  readonly scripted: ScriptedResponder;
  /**
   * Tasks with reference solutions (datasets): the player of `policy.kind: reference`, built
   * over the same source `createSource(options, seed)` gives.
   */
  createReference?(options: Options, seed: number): ReferenceResponder;
}
