import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { playEpisode } from '../grid/play-move-episode.js';
import type { TeamOptions } from '../types.js';
import { sudokuTask } from './index.js';
import { readPromptGrid, renderCompactGrid, renderNaturalGrid } from './sudoku-render.js';
import { readMaxFills } from './sudoku-scripted.js';

const base: TeamOptions = { variant: 'team', format: 'compact', order: 'sequential', maxTurns: 3, alpha: 1 };

async function successes(teamOptions: TeamOptions, skill: number, taskOptions: object = {}, episodes = 200) {
  const options = sudokuTask.optionsSchema.parse(taskOptions);
  const team = sudokuTask.createTeam(options, teamOptions);
  const source = sudokuTask.createSource(options, 3);
  const rng = new Rng(99);
  let solved = 0;
  let parseFailures = 0;
  for (let i = 0; i < episodes; i++) {
    const { env, steps } = await playEpisode({
      team,
      env: source.make(i, 'eval'),
      respond: (role, prompt) => sudokuTask.scripted({ role, prompt, skill, rng }),
    });
    if (env.success) solved++;
    parseFailures += steps.filter((s) => s.outcome.info?.['parsed'] === false).length;
  }
  return { solved, parseFailures };
}

test('the board reads back from both prompt formats', () => {
  const rng = new Rng(5);
  for (let k = 0; k < 50; k++) {
    const cells = Array.from({ length: 16 }, () => rng.int(5));
    assert.deepEqual(readPromptGrid(`AGENT 1/3 M16\n${renderCompactGrid(cells)}\nA:`), { cells, format: 'compact' });
    assert.deepEqual(readPromptGrid(`Intro (1, 2).\n\n${renderNaturalGrid(cells)}\nAnswer:`), { cells, format: 'natural' });
  }
  assert.equal(readPromptGrid('no board here\n12\nA:'), undefined);
  assert.equal(readMaxFills('PLAN 2/3 M7\n....\nA:'), 7);
  assert.equal(readMaxFills('Write at most 12 fills as ...'), 12);
});

test('skill 1 solves 200 of 200 puzzles in every playable variant and format', async () => {
  for (const teamOptions of [base, { ...base, variant: 'single' as const }, { ...base, variant: 'single' as const, format: 'natural' as const }]) {
    const { solved, parseFailures } = await successes(teamOptions, 1);
    assert.equal(solved, 200, `${teamOptions.variant}/${teamOptions.format}`);
    assert.equal(parseFailures, 0);
  }
});

test('skill 1 needs several turns when max_fills is below the hole count, and still solves', async () => {
  // 10 holes, 4 fills per answer: three turns are needed and enough.
  assert.equal((await successes({ ...base, variant: 'single' }, 1, { holes: 10, max_fills: 4 }, 50)).solved, 50);
  assert.equal((await successes({ ...base, variant: 'single', maxTurns: 2 }, 1, { holes: 10, max_fills: 4 }, 50)).solved, 0);
});

test('with hint cell, one fill a turn: skill 1 solves every puzzle in 8 turns, skill 0 never hits a given', async () => {
  const options = { hint: 'cell', max_fills: 1 };
  for (const variant of ['team', 'single'] as const) {
    assert.equal((await successes({ ...base, variant, maxTurns: 8 }, 1, options)).solved, 200, variant);
  }
  const team = sudokuTask.createTeam(sudokuTask.optionsSchema.parse(options), { ...base, maxTurns: 8 });
  const source = sudokuTask.createSource(sudokuTask.optionsSchema.parse(options), 3);
  const rng = new Rng(7);
  let fills = 0;
  for (let i = 0; i < 50; i++) {
    const { steps } = await playEpisode({ team, env: source.make(i, 'eval'), respond: (role, prompt) => sudokuTask.scripted({ role, prompt, skill: 0, rng }) });
    for (const step of steps) {
      fills++;
      assert.doesNotMatch(step.outcome.failure ?? '', /given/);
    }
  }
  assert.ok(fills >= 400, `${fills} fills`);
});

test('skill 0 rarely solves, and its answers still parse', async () => {
  const random = await successes(base, 0);
  assert.ok(random.solved <= 10, `skill 0 solved ${random.solved}/200`);
  assert.equal(random.parseFailures, 0);
  const half = await successes(base, 0.5);
  assert.ok(half.solved > random.solved && half.solved < 200, `skill 0.5 solved ${half.solved}/200`);
});

test('the scripted player is deterministic per rng seed', () => {
  const options = sudokuTask.optionsSchema.parse({});
  const team = sudokuTask.createTeam(options, base);
  const env = sudokuTask.createSource(options, 1).make(0, 'train');
  const prompt = team.roles[0]?.prompt(env, { turn: 0, maxTurns: 3 }) ?? '';
  const answer = (seed: number) => sudokuTask.scripted({ role: 'tool', prompt, skill: 0.5, rng: new Rng(seed) });
  assert.equal(answer(4), answer(4));
  assert.notEqual(answer(4), answer(5));
});
