import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cellAt } from '../grid/grid-shape.js';
import { runMoveTaskSuite, teamOptions } from '../grid/move-task-suite.js';
import type { Direction } from '../grid/types.js';
import { SOKOBAN_REWARDS, SokobanEnv, sokobanGlobalReward, sokobanTask, solveSokoban } from './index.js';
import { reverseSearch } from './reverse-search.js';
import { sokobanPresenter } from './sokoban-presenter.js';
import { taskFromRows } from './task-from-rows.test-helper.js';

const solve = (env: SokobanEnv): Direction[] | undefined => {
  const solution = solveSokoban({ room: env.task.room, state: env.state });
  return solution.status === 'solved' ? solution.moves : undefined;
};

runMoveTaskSuite({
  task: sokobanTask,
  solve,
  state: (env) => [...sokobanPresenter.board(env), `dead ${env.deadlocked}`].join('\n'),
  badOptions: [
    [{ size: 1 }, 'size'],
    [{ boxes: 0 }, 'boxes'],
    [{ size: 5, boxes: 3 }, 'boxes'],
    [{ wall_fraction: 0.9 }, 'wall_fraction'],
    [{ max_moves: 1.5 }, 'max_moves'],
  ],
});

const moves = (text: string) => [...text] as Direction[];
const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);
const { step, invalid, shaping, boxOnGoal, boxOffGoal, solved } = SOKOBAN_REWARDS;

describe('sokoban: rules and rewards on hand-drawn rooms', () => {
  it('walking costs a step, blocked moves the invalid penalty', () => {
    const env = new SokobanEnv(taskFromRows(['######', '#P.BG#', '#....#', '#....#', '#....#', '######']));
    const report = env.applyMoves(moves('ULD'));
    close(report.reward, invalid + invalid + step);
    assert.equal(report.invalid, 2);
    assert.equal(report.pushes, 0);
    assert.match(report.failure ?? '', /2 of 3 moves were blocked/);
  });

  it('pushing the last box onto its goal pays shaping, the goal bonus and the solve bonus', () => {
    const env = new SokobanEnv(taskFromRows(['######', '#.PBG#', '#....#', '#....#', '#....#', '######']));
    assert.equal(env.task.optimal, 1);
    const report = env.applyMoves(moves('RL'));
    close(report.reward, step + shaping + boxOnGoal + solved);
    assert.equal(report.unused, 1);
    assert.equal(env.success && env.done, true);
    close(sokobanGlobalReward(env), 1);
  });

  it('pushing a box off its goal costs the off-goal penalty; back on pays the goal bonus', () => {
    const rows = ['#######', '#.....#', '#..P..#', '#..*..#', '#.....#', '#.BG..#', '#######'];
    const env = new SokobanEnv(taskFromRows(rows));
    const off = env.applyMoves(moves('D'));
    close(off.reward, step - shaping + boxOffGoal);
    assert.equal(off.onGoals, 0);
    assert.equal(env.done, false);
    const back = env.applyMoves(moves('RDDLU'));
    close(back.reward, 4 * step + step + shaping + boxOnGoal);
    assert.equal(back.onGoals, 1);
    assert.equal(env.success, false);
    const last = env.applyMoves(moves('LLDR'));
    close(last.reward, 3 * step + step + shaping + boxOnGoal + solved);
    assert.equal(env.success, true);
  });

  it('a push into a box or a wall is blocked and changes nothing', () => {
    const env = new SokobanEnv(
      taskFromRows(['#######', '#.....#', '#.PBB.#', '#.....#', '#..GG.#', '#.....#', '#######']),
    );
    const before = sokobanPresenter.board(env).join('\n');
    close(env.applyMoves(moves('R')).reward, invalid);
    assert.equal(sokobanPresenter.board(env).join('\n'), before);
    const wall = new SokobanEnv(taskFromRows(['#######', '#.....#', '#...PB#', '#.....#', '#....G#', '#.....#', '#######']));
    close(wall.applyMoves(moves('R')).reward, invalid);
    assert.equal(wall.state.boxes[0], cellAt(wall.task.room.shape, 2, 5));
  });

  it('a box pushed onto a dead square ends the episode as a recorded deadlock', () => {
    const env = new SokobanEnv(taskFromRows(['#######', '#.....#', '#..PB.#', '#.....#', '#.G...#', '#.....#', '#######']));
    const room = env.task.room;
    assert.equal(room.dead[cellAt(room.shape, 2, 5)], 1, 'a wall column without a goal is dead');
    assert.equal(room.dead[cellAt(room.shape, 1, 1)], 1, 'corners are dead');
    assert.equal(room.dead[cellAt(room.shape, 2, 2)], 0);
    const report = env.applyMoves(moves('RL'));
    // Goal at row 4, column 2: the box goes from distance 4 to 5.
    close(report.reward, step - shaping);
    assert.equal(report.deadlock, true);
    assert.equal(report.unused, 1);
    assert.match(report.failure ?? '', /deadlock: the box at row 3, column 6/);
    assert.equal(env.done && !env.success, true);
    assert.match(env.failureReason ?? '', /deadlock/);
    assert.equal(sokobanGlobalReward(env), 0);
    assert.equal(solveSokoban({ room, state: env.state }).status, 'unsolvable');
  });

  it('the observation shows dead squares, boxes on goals and the player on a goal', () => {
    const env = new SokobanEnv(taskFromRows(['######', '#.PBG#', '#....#', '#....#', '#....#', '######']));
    assert.deepEqual(sokobanPresenter.board(env), ['######', '#XPBG#', '#X...#', '#X...#', '#XXXX#', '######']);
    assert.equal(sokobanPresenter.status(env, 'compact'), 'ON0/1');
    env.applyMoves(moves('R'));
    assert.deepEqual(sokobanPresenter.board(env).slice(1, 2), ['#X.P*#']);
    assert.equal(sokobanPresenter.status(env, 'compact'), 'ON1/1');
  });

  it('global reward measures box distance progress, capped below success', () => {
    const env = new SokobanEnv(taskFromRows(['#######', '#.....#', '#.PB..#', '#.....#', '#...G.#', '#.....#', '#######']));
    close(sokobanGlobalReward(env), 0);
    env.applyMoves(moves('R'));
    // Box distance from 3 to 2.
    close(sokobanGlobalReward(env), SOKOBAN_REWARDS.progress * (1 - 2 / 3));
  });
});

describe('sokoban: generated instances', () => {
  const options = sokobanTask.optionsSchema.parse({});
  const source = sokobanTask.createSource(options, 7);

  it("start with no box on a goal, and the solver's plan length equals the generator's optimum", () => {
    for (let index = 0; index < 200; index++) {
      const env = source.make(index, 'train');
      assert.ok(env.state.boxes.every((box) => env.task.room.goals[box] === 0));
      const plan = solve(env)!;
      assert.equal(plan.length, env.task.optimal);
      const report = env.applyMoves(plan);
      assert.equal(report.solved, true);
      assert.ok(report.reward > solved, `reward ${report.reward}`);
    }
  });

  it('reverse search depths are exact optimal solution lengths', () => {
    const env = source.make(0, 'train');
    const reached = reverseSearch(env.task.room, 10_000);
    for (const { state, depth } of reached.filter((_, i) => i % 17 === 0)) {
      const solution = solveSokoban({ room: env.task.room, state });
      assert.equal(solution.status, 'solved');
      if (solution.status === 'solved') assert.equal(solution.moves.length, depth);
    }
  });

  it('more boxes and bigger rooms stay solvable', () => {
    const big = sokobanTask.createSource(sokobanTask.optionsSchema.parse({ size: 7, boxes: 2 }), 3);
    for (let index = 0; index < 20; index++) {
      const env = big.make(index, 'train');
      assert.equal(env.state.boxes.length, 2);
      assert.equal(env.task.room.shape.width, 7);
      const plan = solve(env)!;
      assert.equal(plan.length, env.task.optimal);
      env.applyMoves(plan);
      assert.equal(env.success, true);
    }
  });

  it('compact prompts are short and end with A:', () => {
    const team = sokobanTask.createTeam(options, teamOptions(sokobanTask));
    const env = source.make(1, 'train');
    const prompt = team.roles[0]!.prompt(env, { turn: 0, maxTurns: team.maxTurns });
    assert.ok(prompt.length < 100, `${prompt.length} chars`);
    assert.match(prompt, /^TOOL 1\/5 M20 ON0\/1\n/);
    assert.equal(prompt.split('\n').at(-1), 'A:');
  });
});
