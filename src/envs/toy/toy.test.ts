import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../util/rng.js';
import { rollout } from '../../rollout/rollout.js';
import { scriptedPolicies } from '../../policy/scripted-policies.js';
import { toyGlobalReward, toyTask } from './index.js';
import { ToyEnv } from './toy-env.js';
import { OVERSHOOT_PENALTY, PARSE_PENALTY, STEP_REWARD, createToyRole, parseToyAction } from './toy-roles.js';

const ctx = { turn: 0, maxTurns: 3 };

test('rewards: progress per unit, overshoot penalty, parse penalty, global reward', () => {
  const env = new ToyEnv('toy/train/0', 5);
  const tool = createToyRole('tool', 'compact');
  assert.deepEqual(tool.step(env, { ok: true, action: 3 }, ctx).local, 3 * STEP_REWARD);
  assert.equal(toyGlobalReward(env), 0.5 * 3 / 5);
  const bad = tool.step(env, parseToyAction('x'), ctx);
  assert.equal(bad.local, PARSE_PENALTY);
  assert.match(bad.failure!, /expected a digit 1-3/);
  assert.equal(env.value, 3);
  const clone = env.clone();
  assert.equal(tool.step(clone, { ok: true, action: 3 }, ctx).local, OVERSHOOT_PENALTY);
  assert.equal(clone.done && !clone.success, true);
  assert.equal(toyGlobalReward(clone), 0);
  tool.step(env, { ok: true, action: 2 }, ctx);
  assert.equal(env.success, true);
  assert.equal(toyGlobalReward(env), 1);
  assert.deepEqual(env.history, ['tool+3', 'tool?', 'tool+2'], 'the clone did not touch the original');
});

test('prompts show the target, the value and every earlier move', () => {
  const env = new ToyEnv('toy/train/0', 7);
  createToyRole('tool', 'compact').step(env, { ok: true, action: 2 }, ctx);
  assert.equal(createToyRole('plan', 'compact').prompt(env, ctx), 'T7 V2 H TOOL+2\nPLAN A:');
  assert.match(createToyRole('plan', 'natural').prompt(env, ctx), /Target: 7\. Current value: 2\. Moves so far: tool\+2\./);
});

test('parse reads one digit 1-3 on the first line only', () => {
  assert.deepEqual(parseToyAction(' 2\nmore'), { ok: true, action: 2 });
  assert.equal(parseToyAction('4').ok, false);
  assert.equal(parseToyAction('').ok, false);
  assert.equal(parseToyAction('12').ok, false);
});

test('sources are deterministic per seed and split', () => {
  const a = toyTask.createSource({ max_target: 30 }, 1);
  const targets = (source: typeof a, split: 'train' | 'eval') => Array.from({ length: 20 }, (_, i) => source.make(i, split).target);
  assert.deepEqual(targets(a, 'train'), targets(toyTask.createSource({ max_target: 30 }, 1), 'train'));
  assert.notDeepEqual(targets(a, 'train'), targets(a, 'eval'));
  assert.notDeepEqual(targets(a, 'train'), targets(toyTask.createSource({ max_target: 30 }, 2), 'train'));
  assert.ok(targets(a, 'train').every((t) => t >= 2 && t <= 30));
});

test('the scripted player reads the prompt: skill 1 plays the best amount, skill 0 varies', () => {
  const env = new ToyEnv('toy/train/0', 9);
  env.value = 7;
  for (const format of ['compact', 'natural'] as const) {
    const prompt = createToyRole('tool', format).prompt(env, ctx);
    assert.equal(toyTask.scripted({ role: 'tool', prompt, skill: 1, rng: new Rng(1) }).trim(), '2');
  }
  const prompt = createToyRole('tool', 'compact').prompt(new ToyEnv('t', 20), ctx);
  const answers = new Set(Array.from({ length: 30 }, (_, i) => toyTask.scripted({ role: 'tool', prompt, skill: 0, rng: new Rng(i) })));
  assert.deepEqual([...answers].sort(), ['1\n', '2\n', '3\n']);
});

// The tree rollout shown in docs/new-task.md.
test('a tree rollout on the toy task: K samples per node, skill 1 solves every task', async () => {
  const options = toyTask.optionsSchema.parse({});
  const team = toyTask.createTeam(options, { variant: 'team', format: 'compact', order: 'sequential', maxTurns: 3, alpha: 1 });
  const { samples, episodes } = await rollout({
    team,
    source: toyTask.createSource(options, 1),
    tasks: [0, 1, 2, 3],
    policyFor: scriptedPolicies(toyTask.scripted, 1),
    options: { mode: 'tree', k: 4, temperature: 1, topP: 1, topK: 0, maxTokens: 4, stop: ['\n'] },
    seed: 1,
    step: 0,
  });
  assert.ok(episodes.every((e) => e.success));
  const nodes = new Set(samples.map((s) => s.group));
  assert.equal(samples.length, nodes.size * 4);
});
