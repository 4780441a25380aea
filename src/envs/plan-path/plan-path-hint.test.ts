import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../../util/rng.js';
import { lastMoveText } from '../grid/last-move.js';
import { PlanPathEnv, planPathTask } from './index.js';
import { planPathHint } from './plan-path-presenter.js';
import { taskFromRows } from './task-from-rows.test-helper.js';


describe('plan-path compact hints', () => {
  const env = new PlanPathEnv(taskFromRows(['.#..', 'P...', '#..G']));

  it('goal: rows then columns from P to G, signed by direction', () => {
    assert.equal(planPathHint(env, 'goal'), 'GOAL D1 R3');
    assert.equal(planPathHint(env, 'none'), '');
  });

  it('goal-open: lists the moves that stay on free cells, in U D L R order', () => {
    // P at row 2, column 1: up is free, down is a wall, left is off the grid, right is free.
    assert.equal(planPathHint(env, 'goal-open'), 'GOAL D1 R3 OPEN UR');
    env.applyMoves(['R', 'R', 'U']); // now row 1, column 2: up off the grid, down free, left a wall
    assert.equal(planPathHint(env, 'goal-open'), 'GOAL D2 R1 OPEN DR');
  });

  it('the header carries the hint, the board stays, and the scripted player still solves it', () => {
    const options = planPathTask.optionsSchema.parse({ size: 6, max_moves: 1, hint: 'goal-open' });
    const team = planPathTask.createTeam(options, { variant: 'team', format: 'compact', order: 'sequential', maxTurns: 20, alpha: 1 });
    const task = planPathTask.createSource(options, 3).make(0, 'eval');
    const tool = team.roles[0]!;
    const prompt = tool.prompt(task, { turn: 0, maxTurns: 20 });
    assert.match(prompt.split('\n')[0]!, /^TOOL 1\/20 M1 GOAL( [UD]\d)?( [LR]\d)? OPEN [UDLR]+$/);
    assert.equal(prompt.split('\n').filter((line) => /^[#.PG]{6}$/.test(line)).length, 6);
    const plan = team.roles[1]!;
    for (let turn = 0; turn < 20 && !task.done; turn++) {
      const ctx = { turn, maxTurns: 20 };
      for (const role of [tool, plan]) {
        const text = planPathTask.scripted({ role: role.name, prompt: role.prompt(task, ctx), skill: 1, rng: new Rng(turn) });
        assert.equal(text.length, 2, `one move per answer: ${JSON.stringify(text)}`);
        role.step(task, role.parse(text), ctx);
      }
    }
    assert.ok(task.success);
    assert.ok(task.optimal);
  });

  it('an unknown hint is a config error naming the allowed values', () => {
    const result = planPathTask.optionsSchema.safeParse({ hint: 'coords' });
    assert.ok(!result.success);
    assert.match(JSON.stringify(result.error.issues), /none \| goal \| goal-open/);
  });
});

describe('plan-path history: last', () => {
  const options = planPathTask.optionsSchema.parse({ size: 6, max_moves: 1, hint: 'goal-open', history: 'last' });
  const team = planPathTask.createTeam(options, { variant: 'team', format: 'compact', order: 'sequential', maxTurns: 20, alpha: 1 });
  const [tool, plan] = [team.roles[0]!, team.roles[1]!];

  it('shows the last committed move, never the tool proposal, and marks wall hits and unusable answers', () => {
    const env = new PlanPathEnv(taskFromRows(['.#..', 'P...', '#..G']));
    assert.equal(lastMoveText(env), 'LAST -');
    const ctx = { turn: 0, maxTurns: 20 };
    tool.step(env, tool.parse('U'), ctx);
    assert.equal(lastMoveText(env), 'LAST -', 'a proposal is simulated, not played');
    plan.step(env, plan.parse('R'), ctx);
    assert.equal(lastMoveText(env), 'LAST R');
    plan.step(env, plan.parse('U'), { turn: 1, maxTurns: 20 }); // row 1, column 2 is a wall
    assert.equal(lastMoveText(env), 'LAST UX');
    plan.step(env, plan.parse('hello'), { turn: 2, maxTurns: 20 });
    assert.equal(lastMoveText(env), 'LAST ?');
    assert.match(plan.prompt(env, { turn: 3, maxTurns: 20 }).split('\n')[0]!, /^PLAN 4\/20 M1 GOAL D1 R2 OPEN DLR LAST \?$/);
  });

  it('is off by default and a config error names the allowed values', () => {
    const plain = planPathTask.optionsSchema.parse({ size: 6, max_moves: 1, hint: 'goal-open' });
    const plainTeam = planPathTask.createTeam(plain, { variant: 'team', format: 'compact', order: 'sequential', maxTurns: 20, alpha: 1 });
    const env = planPathTask.createSource(plain, 3).make(0, 'eval');
    assert.doesNotMatch(plainTeam.roles[0]!.prompt(env, { turn: 0, maxTurns: 20 }), /LAST/);
    const result = planPathTask.optionsSchema.safeParse({ history: 'all' });
    assert.ok(!result.success);
    assert.match(JSON.stringify(result.error.issues), /none \| last/);
  });

  it('the single agent sees the same LAST line as the team', () => {
    const single = planPathTask.createTeam(options, { variant: 'single', format: 'compact', order: 'sequential', maxTurns: 20, alpha: 1 });
    const env = new PlanPathEnv(taskFromRows(['.#..', 'P...', '#..G']));
    const agent = single.roles[0]!;
    agent.step(env, agent.parse('R'), { turn: 0, maxTurns: 20 });
    assert.match(agent.prompt(env, { turn: 1, maxTurns: 20 }).split('\n')[0]!, / LAST R$/);
  });
});

describe('plan-path unparseable_reward', () => {
  it('an answer with no usable moves costs unparseable_reward (default: a wall hit), clones keep it', () => {
    for (const [value, expected] of [[undefined, -0.1], [-0.5, -0.5]] as const) {
      const options = planPathTask.optionsSchema.parse(value === undefined ? { size: 5 } : { size: 5, unparseable_reward: value });
      const team = planPathTask.createTeam(options, { variant: 'single', format: 'compact', order: 'sequential', maxTurns: 4, alpha: 1 });
      const env = planPathTask.createSource(options, 1).make(0, 'train').clone();
      const agent = team.roles[0]!;
      const outcome = agent.step(env, agent.parse('hello'), { turn: 0, maxTurns: 4 });
      assert.equal(outcome.local, expected);
    }
    assert.ok(!planPathTask.optionsSchema.safeParse({ unparseable_reward: 0.5 }).success);
  });
});
