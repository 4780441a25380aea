// A spy env records the identity of every env object a prompt was built from and every step
// landed on, so the tests can check where each action really went (SEEDS.md lists the
// reference implementation's defects: steps applied to other envs than the prompts' ones).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Env, Role, Team, TurnOrder } from '../envs/types.js';
import type { Completion, Policy, SampleRequest } from '../policy/types.js';
import { Rng } from '../util/rng.js';
import { rollout } from './rollout.js';
import type { RolloutMode } from './types.js';

interface LogEntry {
  op: 'prompt' | 'step';
  env: number;
  parent: number | undefined;
  task: string;
  turn: number;
  role: string;
  /** env.done when the entry was made. */
  done: boolean;
}

let nextId = 0;

class SpyEnv implements Env {
  readonly id = nextId++;
  parent: number | undefined;
  count = 0;
  constructor(
    readonly taskId: string,
    readonly goal: number,
  ) {}
  get done() {
    return this.count >= this.goal;
  }
  get success() {
    return this.count >= this.goal;
  }
  clone(): this {
    const copy = new SpyEnv(this.taskId, this.goal);
    copy.parent = this.id;
    copy.count = this.count;
    return copy as this;
  }
}

function spyTeam(log: LogEntry[], order: TurnOrder, maxTurns: number): Team<SpyEnv> {
  const role = (name: string): Role<SpyEnv, number> => ({
    name,
    prompt(env, ctx) {
      log.push({ op: 'prompt', env: env.id, parent: env.parent, task: env.taskId, turn: ctx.turn, role: name, done: env.done });
      return `${name} count=${env.count}`;
    },
    parse: (text) => ({ ok: true, action: Number(text) }),
    step(env, action, ctx) {
      log.push({ op: 'step', env: env.id, parent: env.parent, task: env.taskId, turn: ctx.turn, role: name, done: env.done });
      if (action.ok) env.count += action.action;
      return { local: action.ok ? action.action : 0 };
    },
  });
  return { name: 'spy', roles: [role('a'), role('b')], order, maxTurns, alpha: 0.5, globalReward: (env) => env.count };
}

/** Adds a seeded random 0..2 per completion. */
const randomPolicy: Policy = {
  id: 'random',
  async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
    return requests.map((r) =>
      Array.from({ length: r.n }, (_, i) => ({ text: String(Rng.derive(r.seed, i).int(3)), finishReason: 'stop' as const })),
    );
  },
};

async function run(mode: RolloutMode, order: TurnOrder, goal: number, maxTurns = 4) {
  const log: LogEntry[] = [];
  const result = await rollout({
    team: spyTeam(log, order, maxTurns),
    source: { make: (index) => new SpyEnv(`spy/${index}`, goal) },
    tasks: [0, 1, 2],
    policyFor: () => randomPolicy,
    options: { mode, k: 3, temperature: 1, topP: 1, topK: 0, maxTokens: 4, stop: [] },
    seed: 3,
    step: 0,
  });
  return { log, ...result };
}

for (const order of ['sequential', 'parallel'] as const) {
  test(`tree (${order}): each branch steps its own clone of the prompted env; the chosen clone continues`, async () => {
    const { log, samples } = await run('tree', order, 1000);
    for (const task of ['spy/0', 'spy/1', 'spy/2']) {
      let current: number | undefined; // the env the task continues from
      for (let turn = 0; turn < 4; turn++) {
        for (const role of ['a', 'b']) {
          const at = (e: LogEntry) => e.task === task && e.turn === turn && e.role === role;
          const nodePrompt = log.find((e) => at(e) && e.op === 'prompt')!;
          const steps = log.filter((e) => at(e) && e.op === 'step');
          const branchSteps = steps.filter((e) => e.parent === nodePrompt.env);
          assert.equal(branchSteps.length, 3, `${task} t${turn} ${role}: K steps on clones of the prompted env`);
          assert.equal(new Set(branchSteps.map((e) => e.env)).size, 3, 'every branch has its own clone');
          assert.ok(branchSteps.every((e) => e.env !== nodePrompt.env));
          if (current !== undefined) assert.equal(nodePrompt.env, current, `${task} t${turn} ${role} prompted the continuing env`);
          const chosen = samples.find((s) => s.task_id === task && s.turn === turn && s.role === role && s.chosen)!;
          if (order === 'sequential') {
            current = branchSteps[chosen.branch]!.env;
          } else {
            // The chosen action is re-applied to the start-of-turn env itself, in role order.
            const real = steps.filter((e) => e.env === nodePrompt.env);
            assert.equal(real.length, 1, `${task} t${turn} ${role}: one real step on the task env`);
            current = nodePrompt.env;
          }
        }
      }
    }
  });
}

for (const order of ['sequential', 'parallel'] as const) {
  test(`independent (${order}): every step lands on the env object its prompt was built from`, async () => {
    const { log, episodes } = await run('independent', order, 1000);
    assert.equal(episodes.length, 9);
    const prompts = log.filter((e) => e.op === 'prompt');
    const steps = log.filter((e) => e.op === 'step');
    assert.equal(steps.length, prompts.length);
    // Steps happen in the order their prompts were built (per turn), on the same objects.
    steps.forEach((step, i) => assert.equal(step.env, prompts[i]!.env, `step ${i}`));
    assert.ok(log.every((e) => e.parent === undefined), 'independent episodes never clone');
    // Each episode keeps one env object across all its turns: 9 envs in all.
    assert.equal(new Set(steps.map((e) => e.env)).size, 9);
  });
}

test('episodes stop at success: no role acts on a solved env, and never past the turn limit', async () => {
  for (const mode of ['tree', 'independent'] as const) {
    const { log, episodes, samples } = await run(mode, 'sequential', 3, 3);
    assert.ok(log.every((entry) => !entry.done), `${mode}: a prompt or step saw a finished env`);
    assert.ok(samples.every((s) => s.turn < 3), `${mode}: turn limit`);
    assert.ok(episodes.some((e) => e.success), `${mode}: some episodes succeed`);
    for (const e of episodes) {
      const mine = samples.filter((s) => s.task_id === e.task_id && (mode === 'tree' || s.episode === e.episode));
      const count = mine.filter((s) => mode === 'independent' || s.chosen).reduce((acc, s) => acc + Number(s.response), 0);
      assert.equal(e.success, count >= 3, `${mode} ${e.task_id}`);
      assert.equal(e.turns, Math.max(...mine.map((s) => s.turn)) + 1);
      if (!e.success) assert.equal(e.turns, 3, `${mode} ${e.task_id}: an unsolved episode plays every turn`);
    }
    const endless = await run(mode, 'sequential', 1000, 3);
    assert.ok(endless.episodes.every((e) => !e.success && e.turns === 3), `${mode}: turn limit ends unsolved episodes`);
    assert.equal(Math.max(...endless.samples.map((s) => s.turn)), 2);
  }
});
