/**
 * The conformance suite every grid task runs (Plan-Path, Sokoban): generation, solvability,
 * clone independence, the tool/plan/agent contract, the scripted player and the options
 * schema. A task's test file calls `runMoveTaskSuite` and adds its own reward tests.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STANDARD_ALPHABET } from '../../engine/tokenizer/char-tokenizer.js';
import { sandboxSkip } from '../../sandbox/sandbox-skip.test-helper.js';
import { Rng } from '../../util/rng.js';
import type { TaskDefinition, TeamOptions } from '../types.js';
import { playEpisode, type PlayedStep } from './play-move-episode.js';
import type { Direction, MoveEnv, MoveReport } from './types.js';

export interface MoveTaskSuiteOptions<E extends MoveEnv<MoveReport>> {
  readonly task: TaskDefinition<E, any>;
  /** The task's solver on the env's current state; undefined when it finds no solution. */
  readonly solve: (env: E) => Direction[] | undefined;
  /** The env's game state (board, counters; not the history) as one string. */
  readonly state: (env: E) => string;
  /** Option values the schema must reject, each with the key its message must name. */
  readonly badOptions: ReadonlyArray<readonly [Record<string, unknown>, string]>;
}

const SEED = 1234;
const GENERATED = 1000;
const SCRIPTED_EPISODES = 200;
/** Each natural team episode runs a sandboxed program (~0.1 s): a few are enough. */
const NATURAL_EPISODES = 3;

export function teamOptions(task: TaskDefinition<any, any>, overrides: Partial<TeamOptions> = {}): TeamOptions {
  return { variant: 'team', format: 'compact', order: 'sequential', maxTurns: task.defaultMaxTurns, alpha: 1, ...overrides };
}

export function runMoveTaskSuite<E extends MoveEnv<MoveReport>>(suite: MoveTaskSuiteOptions<E>): void {
  const { task, solve, state } = suite;
  const snapshot = (env: E) => `${state(env)}\nhistory:${JSON.stringify(env.history)}`;
  const options = task.optionsSchema.parse({});
  const source = task.createSource(options, SEED);

  describe(`${task.name}: conformance`, () => {
    it(`generates ${GENERATED} solvable instances whose solver plan solves them through the env`, () => {
      for (let index = 0; index < GENERATED; index++) {
        const env = source.make(index, 'train');
        assert.equal(env.taskId, `${task.name}/train/${index}`);
        assert.equal(env.done, false, `${env.taskId} starts solved`);
        const plan = solve(env);
        assert.ok(plan !== undefined && plan.length > 0, `${env.taskId} has no solution`);
        const played = env.clone();
        played.applyMoves(plan);
        assert.equal(played.success, true, `${env.taskId}: solver plan ${plan.join('')} does not solve it`);
      }
    });

    it('is deterministic per seed, and seeds, indexes and splits give different instances', () => {
      const again = task.createSource(options, SEED);
      const other = task.createSource(options, SEED + 1);
      const seen = new Set<string>();
      for (let index = 0; index < 50; index++) {
        const board = state(source.make(index, 'train'));
        assert.equal(state(again.make(index, 'train')), board);
        seen.add(board);
        seen.add(state(source.make(index, 'eval')));
        seen.add(state(other.make(index, 'train')));
      }
      // Random coincidences are possible on tiny boards but must stay rare.
      assert.ok(seen.size >= 140, `only ${seen.size} distinct boards among 150`);
    });

    it('clone() is independent: moves and history on a clone leave the original unchanged', () => {
      const env = source.make(3, 'train');
      const plan = solve(env)!;
      const before = snapshot(env);
      const copy = env.clone();
      copy.applyMoves(plan.slice(0, Math.max(1, plan.length - 1)));
      copy.record({ turn: 0, role: 'plan', kind: 'commit', failure: 'test' });
      assert.equal(snapshot(env), before);
      assert.equal(env.history.length, 0);
      assert.notEqual(snapshot(copy), before);
      // And the other way round: the original moving on does not drag the clone along.
      const copyState = snapshot(copy);
      env.applyMoves(plan);
      env.record({ turn: 0, role: 'plan', kind: 'commit', failure: 'other' });
      assert.equal(snapshot(copy), copyState);
      assert.equal(env.success, true);
      assert.equal(copy.success, false);
    });

    it("tool's proposal runs on a copy, and plan's prompt shows it with its simulated result", () => {
      const team = task.createTeam(options, teamOptions(task));
      assert.deepEqual(team.roles.map((r) => r.name), [...task.teamRoles]);
      const [tool, plan] = team.roles as [(typeof team.roles)[0], (typeof team.roles)[0]];
      const env = source.make(5, 'train');
      const ctx = { turn: 0, maxTurns: team.maxTurns };
      const before = state(env);
      const moves = solve(env)!.slice(0, options.max_moves);
      const outcome = tool.step(env, tool.parse(`${moves.join('')}\n`), ctx);
      assert.ok(outcome.local > 0, `tool's simulated optimal moves earn a positive reward, got ${outcome.local}`);
      assert.equal(env.done, false);
      assert.equal(env.history.length, 1);
      assert.equal(env.history[0]!.kind, 'proposal');
      // Only the history grew: the board is as before.
      assert.equal(state(env), before);
      const prompt = plan.prompt(env, ctx);
      assert.match(prompt, new RegExp(`^TOOL ${moves.join('')}$`, 'm'));
      assert.match(prompt, /^SIM .*R=\d+\.\d\d$/m);
      assert.equal(prompt.split('\n').at(-1), 'A:');
      for (const text of [prompt, tool.prompt(env, ctx)]) {
        const outside = [...text].filter((ch) => !STANDARD_ALPHABET.includes(ch));
        assert.deepEqual(outside, [], 'compact prompts stay inside the small models\' character vocabulary');
      }
      // The plan commits the same moves for real and earns exactly what the simulation said.
      const committed = plan.step(env, plan.parse(moves.join('')), ctx);
      assert.equal(committed.local, outcome.local);
    });

    it('in parallel turn order (MAGRPO) the tool commits its moves: the board changes, as for plan', () => {
      const team = task.createTeam(options, teamOptions(task, { order: 'parallel' }));
      const [tool] = team.roles as [(typeof team.roles)[0]];
      const env = source.make(5, 'train');
      const ctx = { turn: 0, maxTurns: team.maxTurns };
      const before = state(env);
      const moves = solve(env)!.slice(0, options.max_moves);
      const outcome = tool.step(env, tool.parse(`${moves.join('')}\n`), ctx);
      assert.ok(outcome.local > 0, `optimal moves earn a positive reward, got ${outcome.local}`);
      assert.equal(env.history.at(-1)!.kind, 'commit');
      assert.notEqual(state(env), before);
      // The same answer in sequential order is only simulated (the test above).
      const sequential = task.createTeam(options, teamOptions(task)).roles[0]!;
      const other = source.make(5, 'train');
      sequential.step(other, sequential.parse(moves.join('')), ctx);
      assert.equal(state(other), before);
    });

    it('a parse failure is penalised, recorded in the history and shown to plan', () => {
      const team = task.createTeam(options, teamOptions(task));
      const [tool, plan] = team.roles as [(typeof team.roles)[0], (typeof team.roles)[0]];
      const env = source.make(6, 'train');
      const before = state(env);
      const ctx = { turn: 0, maxTurns: team.maxTurns };
      for (const text of ['hello\n', '\n', `${'U'.repeat(options.max_moves + 1)}\n`]) {
        const parsed = tool.parse(text);
        assert.equal(parsed.ok, false, `${JSON.stringify(text)} must not parse`);
        const outcome = tool.step(env, parsed, ctx);
        assert.ok(outcome.local < 0);
        assert.equal(outcome.local, env.invalidPenalty);
        assert.match(outcome.failure ?? '', /^tool: /);
      }
      assert.equal(env.history.length, 3);
      assert.ok(env.history.every((record) => record.failure !== undefined && record.report === undefined));
      assert.match(plan.prompt(env, ctx), /^TOOL \?$/m);
      const committed = plan.step(env, plan.parse('xyz'), ctx);
      assert.equal(committed.local, env.invalidPenalty);
      assert.equal(env.history.at(-1)!.kind, 'commit');
      assert.equal(state(env), before);
    });

    it(`scripted skill 1 solves all of ${SCRIPTED_EPISODES} instances through tool+plan; skill 0 rarely does`, async () => {
      const team = task.createTeam(options, teamOptions(task));
      const rate = async (skill: number) => {
        let solved = 0;
        for (let index = 0; index < SCRIPTED_EPISODES; index++) {
          const rng = Rng.derive(SEED, 'scripted', skill, index);
          const { env } = await playEpisode({
            team,
            env: source.make(index, 'eval'),
            respond: (role, prompt) => task.scripted({ role, prompt, skill, rng }),
          });
          if (env.success) solved++;
        }
        return solved / SCRIPTED_EPISODES;
      };
      assert.equal(await rate(1), 1);
      const random = await rate(0);
      assert.ok(random < 0.2, `skill 0 solved ${random * 100}% of the instances`);
    });

    it('single variant, natural format: the agent role alone, and scripted skill 1 still solves', async () => {
      const team = task.createTeam(options, teamOptions(task, { variant: 'single', format: 'natural' }));
      assert.deepEqual(team.roles.map((r) => r.name), ['agent']);
      for (let index = 0; index < 20; index++) {
        const rng = Rng.derive(SEED, 'natural', index);
        const { env, steps } = await playEpisode({
          team,
          env: source.make(index, 'eval'),
          respond: (role, prompt) => task.scripted({ role, prompt, skill: 1, rng }),
        });
        assert.equal(env.success, true, `${env.taskId} unsolved; answers: ${steps.map((s) => s.text).join(' | ')}`);
        assert.match(steps[0]!.text, /^[UDLR](, [UDLR])*$/);
      }
    });

    it('variant team, natural format: tool programs run in the sandbox; scripted skill 1 solves', { skip: sandboxSkip }, async () => {
      const team = task.createTeam(options, teamOptions(task, { format: 'natural' }));
      assert.deepEqual(team.roles.map((r) => r.name), [...task.teamRoles]);
      assert.equal(typeof team.roles[0]!.prepare, 'function', 'the natural tool runs its program in prepare');
      for (let index = 0; index < NATURAL_EPISODES; index++) {
        const rng = Rng.derive(SEED, 'natural-team', index);
        const fresh = source.make(index, 'eval');
        const { env, steps } = await playEpisode({
          team,
          env: source.make(index, 'eval'),
          respond: (role, prompt) => task.scripted({ role, prompt, skill: 1, rng }),
        });
        assert.equal(env.success, true, `${env.taskId} unsolved; failures: ${steps.map((s) => s.outcome.failure).join(' | ')}`);
        const [tool, plan] = steps as [PlayedStep, PlayedStep];
        assert.match(tool.text, /^```python\n[\s\S]*\nprint\(/);
        assert.equal(tool.outcome.failure, undefined);
        assert.equal(tool.outcome.info?.['program'], 'ok');
        assert.equal(tool.outcome.info?.['solved'], true, 'the BFS program prints a solving list');
        // The program printed the solver's plan, the plan prompt shows it, and plan commits it.
        const printed = solve(fresh)!.join(' ');
        assert.ok(plan.prompt.includes(`It printed:\n\`\`\`\n${printed}\n\`\`\``), plan.prompt);
        assert.ok(plan.prompt.includes(tool.text.split('\n')[1]!), 'the plan prompt shows the program');
        assert.equal(plan.outcome.local, tool.outcome.local, 'plan earns for real what the simulation said');
        assert.equal(env.history[0]!.program?.reason, 'ok');
      }
    });

    it('the options schema applies defaults and rejects unknown keys and bad values by name', () => {
      assert.equal(options.max_moves, 20);
      const unknown = task.optionsSchema.safeParse({ sise: 6 });
      assert.equal(unknown.success, false);
      assert.match(unknown.error!.issues[0]!.message, /"sise".*allowed: .*size/);
      for (const [raw, key] of suite.badOptions) {
        const result = task.optionsSchema.safeParse(raw);
        assert.equal(result.success, false, `${JSON.stringify(raw)} must be rejected`);
        const issue = result.error!.issues[0]!;
        assert.deepEqual(issue.path, [key]);
        assert.match(issue.message, new RegExp(key));
      }
    });
  });
}
