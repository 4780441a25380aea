import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../../util/rng.js';
import type { Direction } from '../grid/types.js';
import { SOKOBAN_REWARDS, SokobanEnv, sokobanTask } from './index.js';
import { sokobanHint, sokobanPresenter, sokobanPresenterWith } from './sokoban-presenter.js';
import { taskFromRows } from './task-from-rows.test-helper.js';

const moves = (text: string) => [...text] as Direction[];

describe('sokoban compact hints', () => {
  it('box from the player, goal from the box, rows then columns, signed by direction', () => {
    const env = new SokobanEnv(taskFromRows(['######', '#P...#', '#..B.#', '#....#', '#.G..#', '######']));
    assert.equal(sokobanHint(env, 'box-goal'), 'BOX D1 R2 GOAL D2 L1');
    // Up and left are walls; down and right are floor.
    assert.equal(sokobanHint(env, 'box-goal-open'), 'BOX D1 R2 GOAL D2 L1 OPEN DR');
    assert.equal(sokobanHint(env, 'none'), '');
    env.applyMoves(moves('DR')); // now just left of the box: right is a legal push
    assert.equal(sokobanHint(env, 'box-goal-open'), 'BOX R1 GOAL D2 L1 OPEN UDLR');
  });

  it('a push into a wall or another box is not open', () => {
    const wall = new SokobanEnv(taskFromRows(['######', '#....#', '#.PB##', '#..G.#', '#....#', '######']));
    assert.equal(sokobanHint(wall, 'box-goal-open'), 'BOX R1 GOAL D1 OPEN UDL');
    const box = new SokobanEnv(taskFromRows(['#######', '#.....#', '#.PBB.#', '#.....#', '#..GG.#', '#.....#', '#######']));
    // The nearer box (row 3, column 4) and the free goal nearest to it (row 5, column 4).
    assert.equal(sokobanHint(box, 'box-goal-open'), 'BOX R1 GOAL D2 OPEN UDL');
  });

  it('with several boxes, boxes on goals and occupied goals are skipped', () => {
    const env = new SokobanEnv(taskFromRows(['#######', '#.....#', '#.P*B.#', '#.....#', '#...G.#', '#.....#', '#######']));
    assert.equal(sokobanHint(env, 'box-goal-open'), 'BOX R2 GOAL D2 OPEN UDL');
  });

  it('push-open: the next push of an optimal solution, where the player stands to make it, the open moves', () => {
    // The box (row 3, column 4) must go left twice onto the goal: stand right of it first.
    const env = new SokobanEnv(taskFromRows(['######', '#P...#', '#G.B.#', '#....#', '#....#', '######']));
    assert.equal(sokobanHint(env, 'push-open'), 'PUSH L FROM D1 R3 OPEN DR');
    env.applyMoves(moves('RRRD'));
    assert.equal(sokobanHint(env, 'push-open'), 'PUSH L HERE OPEN UDL');
    env.applyMoves(moves('L'));
    assert.equal(sokobanHint(env, 'push-open'), 'PUSH L HERE OPEN UDLR');
    env.applyMoves(moves('L'));
    assert.ok(env.success);
    assert.equal(sokobanHint(env, 'push-open'), 'OPEN UDR', 'nothing left to push; the box on the goal cannot go into the wall');
  });

  it('replaces the ON status in compact prompts only; natural prompts are unchanged', () => {
    const env = new SokobanEnv(taskFromRows(['######', '#P...#', '#..B.#', '#....#', '#.G..#', '######']));
    const presenter = sokobanPresenterWith('box-goal-open');
    assert.equal(presenter.status(env, 'compact'), 'BOX D1 R2 GOAL D2 L1 OPEN DR');
    assert.equal(presenter.status(env, 'natural'), sokobanPresenter.status(env, 'natural'));
    assert.equal(sokobanPresenterWith('none').status(env, 'compact'), 'ON0/1');
  });

  it('the header carries the hint, the board stays, and the scripted player still solves it one move a turn', () => {
    const options = sokobanTask.optionsSchema.parse({ size: 6, max_moves: 1, hint: 'box-goal-open' });
    const maxTurns = 24;
    const team = sokobanTask.createTeam(options, { variant: 'team', format: 'compact', order: 'sequential', maxTurns, alpha: 1 });
    const [tool, plan] = team.roles;
    for (let index = 0; index < 5; index++) {
      const task = sokobanTask.createSource(options, 3).make(index, 'eval');
      const prompt = tool!.prompt(task, { turn: 0, maxTurns });
      assert.match(prompt.split('\n')[0]!, /^TOOL 1\/24 M1 BOX( [UD]\d)?( [LR]\d)? GOAL( [UD]\d)?( [LR]\d)? OPEN [UDLR]+$/);
      assert.equal(prompt.split('\n').filter((line) => /^[#.XGB*P+]{6}$/.test(line)).length, 6);
      for (let turn = 0; turn < maxTurns && !task.done; turn++) {
        const ctx = { turn, maxTurns };
        for (const role of [tool!, plan!]) {
          const text = sokobanTask.scripted({ role: role.name, prompt: role.prompt(task, ctx), skill: 1, rng: new Rng(turn) });
          assert.match(text, /^[UDLR]\n$/, `one move per answer: ${JSON.stringify(text)}`);
          role.step(task, role.parse(text), ctx);
        }
      }
      assert.ok(task.success, `task ${index}`);
      assert.equal(task.history.filter((r) => r.kind === 'commit').length, task.task.optimal);
    }
  });

  it('an unknown hint is a config error naming the allowed values', () => {
    const result = sokobanTask.optionsSchema.safeParse({ hint: 'coords' });
    assert.ok(!result.success);
    assert.match(JSON.stringify(result.error.issues), /none \| box-goal \| box-goal-open \| push-open/);
  });
});

describe('sokoban unparseable_reward', () => {
  it('an answer with no usable moves costs unparseable_reward (default: a blocked move), clones keep it', () => {
    for (const [value, expected] of [[undefined, SOKOBAN_REWARDS.invalid], [-0.5, -0.5]] as const) {
      const options = sokobanTask.optionsSchema.parse(value === undefined ? {} : { unparseable_reward: value });
      const team = sokobanTask.createTeam(options, { variant: 'single', format: 'compact', order: 'sequential', maxTurns: 4, alpha: 1 });
      const env = sokobanTask.createSource(options, 1).make(0, 'train').clone();
      const agent = team.roles[0]!;
      const outcome = agent.step(env, agent.parse('hello'), { turn: 0, maxTurns: 4 });
      assert.equal(outcome.local, expected);
    }
    assert.ok(!sokobanTask.optionsSchema.safeParse({ unparseable_reward: 0.5 }).success);
  });
});

describe('sokoban blocked_reward', () => {
  it('sets the price of a blocked move, survives a clone, reaches the env and the natural rules', () => {
    const options = sokobanTask.optionsSchema.parse({ blocked_reward: -0.3 });
    assert.equal(sokobanTask.optionsSchema.parse({}).blocked_reward, SOKOBAN_REWARDS.invalid, 'the published -0.05 by default');
    const env = sokobanTask.createSource(options, 1).make(0, 'train');
    assert.equal(env.blockedPenalty, -0.3);
    const walled = new SokobanEnv(taskFromRows(['######', '#P...#', '#G.B.#', '#....#', '#....#', '######']), SOKOBAN_REWARDS.invalid, 0, -0.3);
    assert.equal(walled.clone().applyMoves(moves('UL')).reward, -0.6);
    assert.equal(walled.applyMoves(moves('R')).reward, SOKOBAN_REWARDS.step, 'a legal walk keeps its reward');
    assert.match(sokobanPresenter.rules(walled).join(' '), /a blocked move costs 0\.3\./);
    assert.match(String(sokobanTask.optionsSchema.safeParse({ blocked_reward: 1 }).error), /blocked_reward must be at most 0/);
  });
});

describe('sokoban solve_shaping', () => {
  const rows = ['######', '#P...#', '#G.B.#', '#....#', '#....#', '######'];
  const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);
  const { step, invalid, shaping } = SOKOBAN_REWARDS;

  it('pays +w along an optimal plan, -w for a detour, nothing on blocked moves', () => {
    const env = new SokobanEnv(taskFromRows(rows), SOKOBAN_REWARDS.invalid, 0.2);
    assert.equal(env.task.optimal, 6); // RRRD then LL
    close(env.applyMoves(moves('R')).reward, step + 0.2);
    close(env.applyMoves(moves('U')).reward, invalid);
    close(env.applyMoves(moves('L')).reward, step - 0.2);
    close(env.clone().applyMoves(moves('RRRDLL')).reward, 6 * (step + 0.2) + 2 * shaping + SOKOBAN_REWARDS.boxOnGoal + SOKOBAN_REWARDS.solved);
  });

  it('a push into an unsolvable state costs -w on top of the box shaping; 0 keeps the published rewards', () => {
    // The box goes from column 4 to column 5, along the wall with no goal: dead.
    const shaped = new SokobanEnv(taskFromRows(['######', '#....#', '#GPB.#', '#....#', '#....#', '######']), SOKOBAN_REWARDS.invalid, 0.2);
    const push = shaped.applyMoves(moves('R'));
    assert.equal(push.deadlock, true);
    close(push.reward, step - shaping - 0.2);
    // A detour walk (one move more to go) costs the same -w; D is on an optimal plan.
    const detour = new SokobanEnv(taskFromRows(['######', '#....#', '#GPB.#', '#....#', '#....#', '######']), SOKOBAN_REWARDS.invalid, 0.2);
    close(detour.clone().applyMoves(moves('L')).reward, step - 0.2);
    close(detour.applyMoves(moves('D')).reward, step + 0.2);
    const plain = new SokobanEnv(taskFromRows(rows));
    close(plain.applyMoves(moves('R')).reward, step);
    const options = sokobanTask.optionsSchema.parse({ solve_shaping: 0.1 });
    assert.equal(sokobanTask.createSource(options, 1).make(0, 'train').clone().solveShaping, 0.1);
    assert.ok(!sokobanTask.optionsSchema.safeParse({ solve_shaping: -0.1 }).success);
  });
});

describe('sokoban history: last', () => {
  it('the header ends with the last committed move, X when it was blocked; the single agent sees it too', () => {
    const options = sokobanTask.optionsSchema.parse({ size: 6, max_moves: 1, hint: 'box-goal-open', history: 'last' });
    for (const variant of ['team', 'single'] as const) {
      const team = sokobanTask.createTeam(options, { variant, format: 'compact', order: 'sequential', maxTurns: 20, alpha: 1 });
      const committer = team.roles.at(-1)!;
      const env = new SokobanEnv(taskFromRows(['######', '#P...#', '#..B.#', '#....#', '#.G..#', '######']));
      const header = (turn: number) => committer.prompt(env, { turn, maxTurns: 20 }).split('\n')[0]!;
      assert.match(header(0), / OPEN DR LAST -$/);
      committer.step(env, committer.parse('U'), { turn: 0, maxTurns: 20 }); // into the wall
      assert.match(header(1), / OPEN DR LAST UX$/, variant);
      committer.step(env, committer.parse('D'), { turn: 1, maxTurns: 20 });
      assert.match(header(2), /^[A-Z]+ 3\/20 M1 BOX R2 GOAL D2 L1 OPEN UDR LAST D$/, variant);
    }
    assert.doesNotMatch(
      sokobanTask.createTeam(sokobanTask.optionsSchema.parse({ size: 6, hint: 'box-goal-open' }), { variant: 'single', format: 'compact', order: 'sequential', maxTurns: 4, alpha: 1 })
        .roles[0]!.prompt(new SokobanEnv(taskFromRows(['######', '#P...#', '#..B.#', '#....#', '#.G..#', '######'])), { turn: 0, maxTurns: 4 }),
      /LAST/,
    );
  });
});
