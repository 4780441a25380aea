import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runMoveTaskSuite, teamOptions } from '../grid/move-task-suite.js';
import type { Direction } from '../grid/types.js';
import { PLAN_PATH_REWARDS, PlanPathEnv, planPathGlobalReward, planPathTask, solvePlanPath } from './index.js';
import { planPathPresenter } from './plan-path-presenter.js';
import { taskFromRows } from './task-from-rows.test-helper.js';

runMoveTaskSuite({
  task: planPathTask,
  solve: (env) => solvePlanPath({ shape: env.task.shape, walls: env.task.walls, from: env.pos, goal: env.task.goal }),
  state: (env) => [...planPathPresenter.board(env), `walked ${env.walked}`].join('\n'),
  badOptions: [
    [{ size: 1 }, 'size'],
    [{ wall_fraction: 0.9 }, 'wall_fraction'],
    [{ width: 2.5 }, 'width'],
    [{ max_moves: 0 }, 'max_moves'],
  ],
});


const moves = (text: string) => [...text] as Direction[];
const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);

// Start top-left, goal bottom-left, a wall between: the only shortest path is RRDDLL.
const U_TURN = ['P..', '##.', 'G..'];

describe('plan-path: rewards on a hand-drawn grid', () => {
  const { step, invalid, shaping, goal, optimalBonus } = PLAN_PATH_REWARDS;

  it('the solver finds the shortest path and reports unreachable goals', () => {
    const task = taskFromRows(U_TURN);
    assert.equal(task.optimal, 6);
    assert.deepEqual(solvePlanPath({ ...task, from: task.start }), moves('RRDDLL'));
    const walled = taskFromRows(['P#.', '##.', '..G']);
    assert.equal(solvePlanPath({ ...walled, from: walled.start }), undefined);
  });

  it('off-grid and into-wall moves cost the invalid penalty and leave the agent in place', () => {
    const env = new PlanPathEnv(taskFromRows(U_TURN));
    const report = env.applyMoves(moves('UDL'));
    close(report.reward, 3 * invalid);
    assert.equal(report.invalid, 3);
    assert.equal(env.pos, env.task.start);
    assert.equal(env.walked, 0);
    assert.match(report.failure ?? '', /3 of 3 moves hit a wall/);
  });

  it('wall_reward sets the price of a wall bump, survives a clone, and the natural rules state it', () => {
    const options = planPathTask.optionsSchema.parse({ size: 6, wall_reward: -0.4 });
    assert.equal(options.wall_reward, -0.4);
    assert.equal(planPathTask.optionsSchema.parse({ size: 6 }).wall_reward, invalid, 'the published -0.1 by default');
    const env = new PlanPathEnv(taskFromRows(U_TURN), invalid, -0.4);
    close(env.clone().applyMoves(moves('UL')).reward, -0.8);
    close(env.applyMoves(moves('R')).reward, step + shaping);
    assert.match(planPathPresenter.rules(env).join(' '), /fails \(-0\.4\)/);
    const made = planPathTask.createSource(options, 1).make(0, 'train');
    assert.equal(made.wallPenalty, -0.4, 'the task option reaches the env');
    assert.match(String(planPathTask.optionsSchema.safeParse({ wall_reward: 0.2 }).error), /wall_reward must be at most 0/);
  });

  it('shaping rewards a step toward the goal and charges a step away', () => {
    const env = new PlanPathEnv(taskFromRows(U_TURN));
    close(env.applyMoves(moves('R')).reward, step + shaping);
    close(env.applyMoves(moves('L')).reward, step - shaping);
    assert.equal(env.applyMoves(moves('R')).failure, undefined);
  });

  it('the shortest path earns the goal and the optimal bonus; a detour only the goal', () => {
    const best = new PlanPathEnv(taskFromRows(U_TURN));
    const report = best.applyMoves(moves('RRDDLL'));
    close(report.reward, 6 * (step + shaping) + goal + optimalBonus);
    assert.equal(report.solved && report.optimal && best.done && best.success, true);
    close(planPathGlobalReward(best), goal + optimalBonus);

    const detour = new PlanPathEnv(taskFromRows(U_TURN));
    const long = detour.applyMoves(moves('RLRRDDLL'));
    close(long.reward, 7 * (step + shaping) + (step - shaping) + goal);
    assert.equal(long.optimal, false);
    close(planPathGlobalReward(detour), goal);
  });

  it('moves after the goal are not played and are reported as unused', () => {
    const env = new PlanPathEnv(taskFromRows(U_TURN));
    const report = env.applyMoves(moves('RRDDLLUU'));
    assert.equal(report.executed, 6);
    assert.equal(report.unused, 2);
    assert.equal(env.walked, 6);
  });

  it('global reward grows with the share of the distance covered, bounded below success', () => {
    const env = new PlanPathEnv(taskFromRows(U_TURN));
    close(planPathGlobalReward(env), 0);
    env.applyMoves(moves('RR'));
    close(planPathGlobalReward(env), PLAN_PATH_REWARDS.progress * (1 - 4 / 6));
    env.applyMoves(moves('LL'));
    close(planPathGlobalReward(env), 0);
  });
});

describe('plan-path: generated instances and prompts', () => {
  const options = planPathTask.optionsSchema.parse({});
  const source = planPathTask.createSource(options, 99);

  it("the solver's plan through the env earns the optimal-path bonus", () => {
    for (let index = 0; index < 100; index++) {
      const env = source.make(index, 'train');
      const plan = solvePlanPath({ ...env.task, from: env.task.start })!;
      assert.equal(plan.length, env.task.optimal);
      assert.ok(env.task.optimal >= options.min_distance);
      const report = env.applyMoves(plan);
      assert.equal(report.optimal, true);
      assert.ok(report.reward > goalAndBonus() - 1e-9, `reward ${report.reward}`);
    }
    function goalAndBonus() {
      return PLAN_PATH_REWARDS.goal + PLAN_PATH_REWARDS.optimalBonus;
    }
  });

  it('honours height/width and wall_fraction', () => {
    const wide = planPathTask.createSource(planPathTask.optionsSchema.parse({ height: 4, width: 7, wall_fraction: 0 }), 1);
    const env = wide.make(0, 'train');
    assert.deepEqual(env.task.shape, { height: 4, width: 7 });
    assert.equal(env.task.walls.reduce((a, b) => a + b, 0), 0);
    const dense = source.make(0, 'train');
    assert.equal(dense.task.walls.reduce((a, b) => a + b, 0), Math.round(0.22 * 100));
  });

  it('a 10x10 compact prompt is under 200 characters and ends with A:', () => {
    const team = planPathTask.createTeam(options, teamOptions(planPathTask));
    const [tool, plan] = team.roles as [(typeof team.roles)[0], (typeof team.roles)[0]];
    const env = source.make(7, 'train');
    const ctx = { turn: 0, maxTurns: team.maxTurns };
    const toolPrompt = tool.prompt(env, ctx);
    assert.ok(toolPrompt.length < 200, `${toolPrompt.length} chars`);
    tool.step(env, tool.parse('RRRRRRRRRRDDDDDDDDDD'), ctx);
    const planPrompt = plan.prompt(env, ctx);
    assert.ok(planPrompt.length <= 200, `${planPrompt.length} chars:\n${planPrompt}`);
    for (const prompt of [toolPrompt, planPrompt]) {
      assert.equal(prompt.split('\n').at(-1), 'A:');
    }
    assert.equal(toolPrompt.split('\n').filter((line) => /^[#.PG]{10}$/.test(line)).length, 10);
  });
});
