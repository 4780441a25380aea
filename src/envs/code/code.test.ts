import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptedPolicies } from '../../policy/scripted-policies.js';
import { rollout } from '../../rollout/rollout.js';
import type { TeamOptions } from '../types.js';
import { CodeEnv } from './code-env.js';
import { extractCode } from './extract-code.js';
import { codeTask } from './index.js';
import { parseTestCases } from './parse-test-cases.js';
import { SandboxMemo } from './shared-sandbox.js';
import { sandboxSkip } from '../../sandbox/sandbox-skip.test-helper.js';

const team = (over: Partial<TeamOptions> = {}): TeamOptions => ({ variant: 'team', format: 'natural', order: 'sequential', maxTurns: 2, alpha: 1, ...over });
const ctx0 = { turn: 0, maxTurns: 2 };
const ctx1 = { turn: 1, maxTurns: 2 };

const problem = {
  id: 'add',
  question: 'Read two integers a and b. Print a + b.',
  tests: [
    { input: '1 2\n', output: '3\n' },
    { input: '5 5\n', output: '10\n' },
    { input: '-1 1\n', output: '0\n' },
  ],
  solution: 'a, b = map(int, input().split())\nprint(a + b)\n',
};

test('extractCode: python fence first, any fence, cut-off fence, bare text keeps indentation', () => {
  assert.equal(extractCode('Here:\n```text\nx\n```\n```python\nprint(1)\n```\nbye'), 'print(1)\n');
  assert.equal(extractCode('```\nprint(2)\n```'), 'print(2)\n');
  assert.equal(extractCode('```python\nprint(3)\nprint(4'), 'print(3)\nprint(4\n');
  assert.equal(extractCode('    return x\n'), '    return x\n');
  assert.equal(extractCode('  \n '), undefined);
});

test('parseTestCases: JSON list (fenced or bare) and the compact form; nothing found is a failure', () => {
  assert.deepEqual(parseTestCases('```json\n[{"input": "1 2", "output": "3\\n"}]\n```'), { ok: true, action: [{ input: '1 2\n', output: '3\n' }] });
  assert.deepEqual(parseTestCases('1 2=>3;4 5=>9'), { ok: true, action: [{ input: '1 2\n', output: '3' }, { input: '4 5\n', output: '9' }] });
  assert.equal(parseTestCases('I think it works').ok, false);
});

test('code env: coder reward = hidden share; tester agreement with the reference; mismatches fed back at turn 2', { skip: sandboxSkip }, async () => {
  const env = new CodeEnv({ taskId: 'code/train/0', problem, memo: new SandboxMemo() });
  const t = codeTask.createTeam({}, team());
  const [coder, tester] = t.roles;
  const act = async (role: typeof coder, text: string, ctx: typeof ctx0) => {
    const parsed = role!.parse(text);
    await role!.prepare!(env, parsed, ctx);
    return role!.step(env, parsed, ctx);
  };
  // abs(a) + b passes 1 2 and 5 5 but not -1 1.
  const c0 = await act(coder, '```python\na, b = map(int, input().split())\nprint(abs(a) + b)\n```', ctx0);
  assert.deepEqual([c0.local, c0.failure], [2 / 3, 'failed 1 of 3 hidden tests: wrong output']);
  assert.equal(t.globalReward(env), 2 / 3);
  assert.equal(env.done, false);
  // Two right cases, one wrong expectation (2 2 -> 5): reference agreement 2/3.
  const t0 = await act(tester, '```json\n[{"input": "1 2", "output": "3"}, {"input": "-1 1", "output": "0"}, {"input": "2 2", "output": "5"}]\n```', ctx0);
  assert.deepEqual([t0.local, t0.failure], [2 / 3, '1 of 3 cases disagree with the reference solution']);
  assert.deepEqual(env.mismatches.map((m) => [m.input, m.actual]), [['-1 1\n', '2\n'], ['2 2\n', '4\n']]);
  assert.equal(env.done, false, 'not agreed: two mismatches');
  for (const role of [coder!, tester!]) {
    const prompt = role.prompt(env, ctx1);
    assert.match(prompt, /input "-1 1\\n", the tester expects "0", the program gave "2\\n"/, role.name);
    assert.match(prompt, /input "2 2\\n", the tester expects "5", the program gave "4\\n"/, role.name);
    assert.ok(!role.prompt(new CodeEnv({ taskId: 'code/train/0', problem, memo: new SandboxMemo() }), ctx0).includes('Mismatch'));
  }
  const prose = await act(coder, 'I am not sure.', ctx1);
  assert.deepEqual([prose.local, prose.failure], [0, 'failed 3 of 3 hidden tests: syntax error at line 1: invalid syntax'], 'bare text is taken as a program, and fails');
  const crash = await act(coder, 'a, b = map(int, input().split())\nprint(a + c)', ctx1);
  assert.equal(crash.failure, "failed 3 of 3 hidden tests: NameError: name 'c' is not defined (line 2)");
  const empty = await act(coder, '  \n', ctx1);
  assert.equal(empty.local, 0);
  assert.match(empty.failure!, /parse: no program/);
  assert.match(coder!.prompt(env, ctx1), /coder: answer had no program/);
  const c1 = await act(coder, '```python\na, b = map(int, input().split())\nprint(a + b)\n```', ctx1);
  assert.deepEqual([c1.local, c1.failure], [1, undefined]);
  assert.equal(env.success, true);
  assert.equal(t.globalReward(env), 1);
  assert.deepEqual(env.mismatches.map((m) => m.input), ['2 2\n'], 'the wrong case still mismatches');
  assert.equal(env.done, false, 'hidden tests decide success, not the end of the episode');
  const t1 = await act(tester, '1 2=>3;2 2=>4', ctx1);
  assert.deepEqual([t1.local, t1.failure], [1, undefined]);
  assert.equal(env.done, true, 'coder and tester agree');
});

test('code env: without a reference solution, cases are credited only against a program that passes the hidden tests', { skip: sandboxSkip }, async () => {
  const { solution: _solution, ...bare } = problem;
  const env = new CodeEnv({ taskId: 'code/train/0', problem: bare, memo: new SandboxMemo() });
  const tester = codeTask.createTeam({}, team()).roles[1]!;
  const cases = tester.parse('1 2=>3');
  await tester.prepare!(env, cases, ctx0);
  const out = tester.step(env, cases, ctx0);
  assert.deepEqual([out.local, out.failure], [0, 'cases not checked: the problem has no reference solution and no program passes the hidden tests yet']);
});

test('code env: a program that loops forever fails its cases with reason timeout; clones do not share state', { skip: sandboxSkip }, async () => {
  const env = new CodeEnv({ taskId: 'code/train/0', problem: { ...problem, tests: problem.tests.slice(0, 1) }, memo: new SandboxMemo() });
  const coder = codeTask.createTeam({}, team({ variant: 'single' })).roles[0]!;
  assert.equal(coder.name, 'agent');
  const clone = env.clone();
  const loop = coder.parse('while True:\n    pass\n');
  await coder.prepare!(clone, loop, ctx0);
  const out = coder.step(clone, loop, ctx0);
  assert.equal(out.local, 0);
  assert.equal(out.failure, 'failed 1 of 1 hidden tests: timeout');
  assert.equal(env.code, null, 'the original is untouched');
  assert.throws(() => coder.step(env, coder.parse('print(1)'), ctx0), /before prepare/);
});

test('code task through the tree rollout: scripted skill 1 solves every synthetic task, skill 0 none', { skip: sandboxSkip }, async () => {
  const options = codeTask.optionsSchema.parse({});
  for (const [skill, solved] of [[1, true], [0, false]] as const) {
    const { episodes, samples } = await rollout({
      team: codeTask.createTeam(options, team({ format: 'compact' })),
      source: codeTask.createSource(options, 5),
      tasks: [0, 1, 2],
      policyFor: scriptedPolicies(codeTask.scripted, skill),
      options: { mode: 'tree', k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 200, stop: ['\n'] },
      seed: 1,
      step: 0,
    });
    assert.ok(episodes.every((e) => e.success === solved), `skill ${skill}`);
    assert.ok(samples.every((s) => s.failure === undefined || !s.failure.startsWith('parse')), 'compact answers parse');
  }
});
