// The natural-format Sudoku team with real sandbox runs: the tool's program prints fills that
// are judged on a copy of the board, the plan prompt shows program, output and verdicts, and
// failed programs are penalised with their reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { playEpisode } from '../grid/play-move-episode.js';
import type { TeamOptions } from '../types.js';
import { sudokuTask } from './index.js';
import { puzzleEnv } from './sudoku-fixtures.test-helper.js';
import { SUDOKU_REWARDS } from './sudoku-rewards.js';
import { sandboxSkip } from '../../sandbox/sandbox-skip.test-helper.js';

const options = sudokuTask.optionsSchema.parse({});
const natural: TeamOptions = { variant: 'team', format: 'natural', order: 'sequential', maxTurns: 3, alpha: 1 };
const t0 = { turn: 0, maxTurns: 3 };
const fence = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

test('scripted skill 1: the tool program solves the puzzle in the sandbox, plan commits its fills', { skip: sandboxSkip }, async () => {
  const team = sudokuTask.createTeam(options, natural);
  const source = sudokuTask.createSource(options, 3);
  for (let index = 0; index < 3; index++) {
    const rng = new Rng(40 + index);
    const { env, steps } = await playEpisode({
      team,
      env: source.make(index, 'eval'),
      respond: (role, prompt) => sudokuTask.scripted({ role, prompt, skill: 1, rng }),
    });
    assert.equal(env.success, true, `${env.taskId}: ${steps.map((s) => s.outcome.failure).join(' | ')}`);
    const [tool, plan] = steps;
    assert.ok(tool !== undefined && plan !== undefined);
    assert.match(tool.text, /^```python\n[\s\S]*def solve\(grid\)/);
    assert.deepEqual([tool.outcome.info?.['program'], tool.outcome.info?.['solved'], tool.outcome.failure], ['ok', true, undefined]);
    assert.match(plan.prompt, /It ran to the end\.\nIt printed:\n```\n(\(\d, \d, \d\)\n)+```/);
    assert.equal(plan.outcome.local, tool.outcome.local, 'the committed fills earn what the check on the copy said');
  }
});

test('a program printing a wrong fill: judged on a copy, the board unchanged, verdicts shown to plan', { skip: sandboxSkip }, async () => {
  const [tool, plan] = sudokuTask.createTeam(options, natural).roles;
  assert.ok(tool !== undefined && plan !== undefined);
  const env = puzzleEnv();
  const before = [...env.cells];
  // (1, 2, 2) is right; (1, 4, 1) repeats the 1 of row 1.
  const action = tool.parse(fence('for r, c, d in [(1, 2, 2), (1, 4, 1)]:\n    print((r, c, d))'));
  await tool.prepare!(env, action, t0);
  const outcome = tool.step(env, action, t0);
  assert.equal(outcome.failure, 'tool: invalid fills: 1 conflict');
  assert.ok(Math.abs(outcome.local - (SUDOKU_REWARDS.fillCost + SUDOKU_REWARDS.correctFillShaping + SUDOKU_REWARDS.invalidFill)) < 1e-9);
  assert.deepEqual(env.cells, before);
  const prompt = plan.prompt(env, t0);
  assert.match(prompt, /It printed:\n```\n\(1, 2, 2\)\n\(1, 4, 1\)\n```/);
  assert.match(prompt, /Turn 1, tool proposed: \(1, 2, 2\) applied; \(1, 4, 1\) rejected: 1 is already in its row/);
});

test('a crashing program and one printing no fills cost the parse penalty, with reasons', { skip: sandboxSkip }, async () => {
  const [tool, plan] = sudokuTask.createTeam(options, natural).roles;
  assert.ok(tool !== undefined && plan !== undefined);
  const cases: Array<[string, RegExp]> = [
    ['import nosuchmodule', /^tool: program error: ModuleNotFoundError: No module named 'nosuchmodule'$/],
    ['print("the answer is 4")', /^tool: program output unusable: no fills found/],
  ];
  const envs = cases.map(() => puzzleEnv());
  const actions = cases.map(([code]) => tool.parse(fence(code)));
  await Promise.all(actions.map((action, i) => tool.prepare!(envs[i]!, action, t0)));
  cases.forEach(([code, failure], i) => {
    const outcome = tool.step(envs[i]!, actions[i]!, t0);
    assert.equal(outcome.local, SUDOKU_REWARDS.parseFailure, code);
    assert.match(outcome.failure ?? '', failure, code);
    assert.match(plan.prompt(envs[i]!, t0), /Turn 1, tool: an answer that could not be used \(program /);
  });
  assert.match(plan.prompt(envs[0]!, t0), /It did not finish normally \(error\)\.[\s\S]*Its error output ends with:/);
});
