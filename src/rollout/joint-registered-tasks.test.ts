// Joint (MAGRPO) rollouts on every registered task, through the same `rollout` entry point the
// CLI uses: the group invariants hold (rollout() asserts them) and the tree has the expected
// shape for real envs, not only the tiny test task of joint-rollout.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtInTask, builtInTaskNames } from '../envs/task-catalog.js';
import { scriptedPolicies } from '../policy/scripted-policies.js';
import { rollout } from './rollout.js';
import type { Sample } from './types.js';
import { sandboxSkipFor } from '../sandbox/sandbox-skip.test-helper.js';

const tasks = [0, 1];

for (const name of builtInTaskNames()) {
  test(`${name} (joint, aligned, 2 turns): G samples per (task, node, role), children follow joint actions`, { skip: sandboxSkipFor(name) }, async () => {
    const task = builtInTask(name);
    const options = task.optionsSchema.parse({});
    const team = task.createTeam(options, { variant: 'team', format: 'compact', order: 'parallel', maxTurns: 2, alpha: 1 });
    const { samples, episodes } = await rollout({
      team,
      source: task.createSource(options, 7),
      tasks,
      policyFor: scriptedPolicies(task.scripted, 0.5),
      options: { mode: 'joint', k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 48, stop: ['\n'], joint: { joint: 'aligned' } },
      seed: 3,
      step: 0,
    });
    assert.equal(episodes.length, tasks.length);
    const groups = new Map<string, Sample[]>();
    for (const s of samples) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
    for (const [key, members] of groups) {
      assert.equal(members.length, 2, key);
      assert.ok(members.every((s) => s.prompt === members[0]!.prompt));
    }
    const nodes = new Set(samples.map((s) => `${s.task_id}|${s.node}`));
    // Each task has its root and at most G children (fewer when a joint action ended the episode).
    for (const s of samples) assert.ok(s.node === '0' || /^0\.[01]$/.test(s.node!), `${name}: node ${s.node}`);
    assert.equal(samples.length, nodes.size * team.roles.length * 2);
    for (const e of episodes) assert.ok(e.turns >= 1 && e.turns <= 2);
  });
}

test('coop-code (joint, 2 turns): a child node prompts with its joint action\'s two functions and their test feedback', { skip: sandboxSkipFor('coop-code') }, async () => {
  const task = builtInTask('coop-code');
  const options = task.optionsSchema.parse({ transition: 'feedback' });
  const team = task.createTeam(options, { variant: 'team', format: 'compact', order: 'parallel', maxTurns: 2, alpha: 1 });
  const { samples } = await rollout({
    team,
    source: task.createSource(options, 7),
    tasks: [0, 1, 2],
    policyFor: scriptedPolicies(task.scripted, 0.3),
    options: { mode: 'joint', k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 120, stop: ['\n'], joint: { joint: 'aligned' } },
    seed: 5,
    step: 0,
  });
  const children = samples.filter((s) => s.node !== '0');
  assert.ok(children.length > 0, 'some joint action left tests failing, so a second turn was played');
  for (const child of children) {
    const j = Number(child.node!.split('.')[1]);
    const at = (role: string) => samples.find((s) => s.task_id === child.task_id && s.node === '0' && s.role === role && s.branch === j)!;
    const [aux, main] = [at('aux'), at('main')];
    assert.ok(child.prompt.includes(`aux ${aux.response.trim()}`), `${child.group}: shows joint action ${j}'s aux`);
    assert.ok(child.prompt.includes(`main ${main.response.trim()}`), `${child.group}: shows joint action ${j}'s main`);
    assert.match(child.prompt, /\nF /, `${child.group}: shows the feedback transition`);
    // The joint reward of the parent joint action is what both of its responses record.
    assert.equal(aux.reward.global, main.reward.global);
  }
});
