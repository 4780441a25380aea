import { test } from 'node:test';
import assert from 'node:assert/strict';
import { referencePolicies } from '../../policy/reference-policy.js';
import { scriptedPolicies } from '../../policy/scripted-policies.js';
import { rollout } from '../../rollout/rollout.js';
import { SandboxMemo } from '../code/shared-sandbox.js';
import type { TeamOptions } from '../types.js';
import { mathTask } from './index.js';
import { MathEnv } from './math-env.js';
import { sandboxSkip } from '../../sandbox/sandbox-skip.test-helper.js';

const team = (over: Partial<TeamOptions> = {}): TeamOptions => ({ variant: 'team', format: 'natural', order: 'sequential', maxTurns: 3, alpha: 1, ...over });
const ctx = (turn: number) => ({ turn, maxTurns: 3 });
const problem = { id: 'p', question: 'What is half of 3?', answer: '\\frac{3}{2}' };

test('math episode: tool runs in the sandbox, both histories shown from turn 2, ends when the answers agree', { skip: sandboxSkip }, async () => {
  const env = new MathEnv('math/train/0', problem, new SandboxMemo());
  const [tool, reasoning] = mathTask.createTeam({}, team()).roles;
  const act = async (role: typeof tool, text: string, turn: number) => {
    const parsed = role!.parse(text);
    await role!.prepare?.(env, parsed, ctx(turn));
    return role!.step(env, parsed, ctx(turn));
  };
  const t0 = await act(tool, '```python\nprint("thinking")\nprint(3 / 2)\n```', 0);
  assert.deepEqual([t0.local, env.toolAnswer], [1, '1.5'], 'the last printed line is the answer; 1.5 = 3/2');
  const r0 = await act(reasoning, 'Half of three is \\boxed{1}.', 0);
  assert.deepEqual([r0.local, r0.failure], [0, 'wrong answer 1']);
  assert.equal(env.done, false, '1.5 and 1 disagree');
  const p1 = reasoning!.prompt(env, ctx(1));
  assert.match(p1, /print\(3 \/ 2\)/);
  assert.match(p1, /Output: 1\.5/);
  assert.match(p1, /final answer 1\)/);
  assert.match(tool!.prompt(env, ctx(1)), /Reasoning attempt 1 \(final answer 1\)/);
  const bad = await act(tool, '```python\nraise ValueError("x")\n```', 1);
  assert.deepEqual([bad.local, bad.failure], [0, 'program error: ValueError: x (line 1)']);
  assert.equal(env.toolAnswer, null);
  const wrong = await act(tool, 'print(7)', 1);
  assert.deepEqual([wrong.local, wrong.failure], [0, 'wrong answer 7']);
  await act(tool, 'print(1.5)', 1);
  const r1 = await act(reasoning, '$\\boxed{\\dfrac{3}{2}}$', 1);
  assert.deepEqual([r1.local, r1.failure], [1, undefined]);
  assert.equal(env.done && env.success, true, 'agreement ends the episode');
  assert.equal(reasoning!.parse('no box').ok, false);
});

test('math: agreement on a wrong answer ends the episode unsolved; single agent ends once it answers', { skip: sandboxSkip }, async () => {
  const env = new MathEnv('math/train/0', problem, new SandboxMemo());
  const [tool, reasoning] = mathTask.createTeam({}, team({ format: 'compact' })).roles;
  const p = tool!.parse('print(2)');
  await tool!.prepare!(env, p, ctx(0));
  tool!.step(env, p, ctx(0));
  reasoning!.step(env, reasoning!.parse('\\boxed{2}'), ctx(0));
  assert.equal(env.done, true);
  assert.equal(env.success, false);
  assert.equal(mathTask.createTeam({}, team()).globalReward(env), 0);
  const alone = new MathEnv('math/train/0', problem, new SandboxMemo());
  const agent = mathTask.createTeam({}, team({ variant: 'single' })).roles[0]!;
  agent.step(alone, agent.parse('\\boxed{1.5}'), ctx(0));
  assert.equal(alone.done && alone.success, true);
});

test('math through the tree rollout: scripted skill 1 and the reference policy solve every synthetic task', { skip: sandboxSkip }, async () => {
  const options = mathTask.optionsSchema.parse({});
  const rolloutOptions = { mode: 'tree' as const, k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 64, stop: ['\n'] };
  for (const policyFor of [scriptedPolicies(mathTask.scripted, 1), referencePolicies(mathTask, options, 4)]) {
    const { episodes } = await rollout({
      team: mathTask.createTeam(options, team({ format: 'compact' })),
      source: mathTask.createSource(options, 4),
      tasks: [0, 1, 2, 3],
      policyFor,
      options: rolloutOptions,
      seed: 1,
      step: 0,
    });
    assert.ok(episodes.every((e) => e.success && e.turns === 1), JSON.stringify(episodes.map((e) => [e.success, e.turns])));
  }
  const { episodes } = await rollout({
    team: mathTask.createTeam(options, team({ format: 'compact' })),
    source: mathTask.createSource(options, 4),
    tasks: [0, 1, 2, 3],
    policyFor: scriptedPolicies(mathTask.scripted, 0),
    options: rolloutOptions,
    seed: 1,
    step: 0,
  });
  assert.ok(episodes.every((e) => !e.success), 'skill 0 never answers right');
});
