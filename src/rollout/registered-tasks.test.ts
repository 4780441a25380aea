// Runs the rollout acceptance checks on every registered task (the toy task and the real
// ones), through the same code path `troupe rollout` uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtInTask, builtInTaskNames } from '../envs/task-catalog.js';
import type { TeamOptions } from '../envs/types.js';
import { scriptedPolicies } from '../policy/scripted-policies.js';
import { assertChosenStateContinues } from './replay-chosen.test-helper.js';
import { rollout } from './rollout.js';
import type { RolloutMode, Sample } from './types.js';
import { sandboxSkipFor } from '../sandbox/sandbox-skip.test-helper.js';

const tasks = [0, 1, 2, 3, 4, 5];

async function play(name: string, team: Partial<TeamOptions>, mode: RolloutMode) {
  const task = builtInTask(name);
  const options = task.optionsSchema.parse({});
  const built = task.createTeam(options, {
    variant: 'team',
    format: 'compact',
    order: 'sequential',
    maxTurns: task.defaultMaxTurns,
    alpha: 1,
    ...team,
  });
  const source = task.createSource(options, 7);
  const result = await rollout({
    team: built,
    source,
    tasks,
    policyFor: scriptedPolicies(task.scripted, 0.5),
    options: { mode, k: 4, temperature: 1, topP: 1, topK: 0, maxTokens: 48, stop: ['\n'] },
    seed: 3,
    step: 0,
  });
  return { team: built, source, ...result };
}

function groups(samples: Sample[]): Sample[][] {
  const map = new Map<string, Sample[]>();
  for (const s of samples) map.set(s.group, [...(map.get(s.group) ?? []), s]);
  return [...map.values()];
}

for (const name of builtInTaskNames()) {
  for (const order of ['sequential', 'parallel'] as const) {
    test(`${name} (tree, ${order}): nodes of K, chosen state continues, second role's branches differ`, { skip: sandboxSkipFor(name) }, async () => {
      const { team, source, samples } = await play(name, { order }, 'tree');
      for (const g of groups(samples)) {
        assert.equal(g.length, 4);
        assert.ok(g.every((s) => s.prompt === g[0]!.prompt && s.task_id === g[0]!.task_id));
      }
      assertChosenStateContinues(team, source, tasks, samples);
      const second = team.roles[1]!.name;
      const secondGroups = groups(samples).filter((g) => g[0]!.role === second);
      assert.ok(secondGroups.length > 0, `${second} acted`);
      assert.ok(
        secondGroups.some((g) => new Set(g.map((s) => s.reward.total)).size > 1),
        `some ${second} node has differing branch rewards`,
      );
    });
  }

  test(`${name} (single, independent): K episodes per task, groups per (task, role)`, { skip: sandboxSkipFor(name) }, async () => {
    const { samples, episodes } = await play(name, { variant: 'single' }, 'independent');
    assert.equal(episodes.length, tasks.length * 4);
    assert.ok(samples.every((s) => s.role === 'agent' && s.group === `${s.task_id}|agent`));
    assert.equal(new Set(samples.map((s) => s.group)).size, tasks.length);
  });
}
