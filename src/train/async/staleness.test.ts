import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Sample } from '../../rollout/types.js';
import { assertWithinStaleness, sampleStaleness, splitStale, stalenessHistogram, tagVersions } from './staleness.js';

function sample(task: string, role: string, policy: string, version?: number, branch = 0): Sample {
  return {
    task_id: task, turn: 0, role, group: `${task}|t0|${role}`, branch, prompt: 'P', response: 'R',
    reward: { local: 0, global: 0, total: 0 }, score: 0, advantage: 0, policy, finish_reason: 'stop',
    ...(version === undefined ? {} : { policy_version: version }),
  };
}

test('staleness is the policy\'s updates since sampling; unversioned or untrained samples are never stale', () => {
  const versions = new Map([['tool', 5], ['plan', 2]]);
  assert.equal(sampleStaleness(sample('a', 'tool', 'tool', 3), versions), 2);
  assert.equal(sampleStaleness(sample('a', 'plan', 'plan', 2), versions), 0);
  assert.equal(sampleStaleness(sample('a', 'plan', 'plan'), versions), 0, 'on-policy samples carry no version');
  assert.equal(sampleStaleness(sample('a', 'x', 'scripted', 0), versions), 0);
  assert.deepEqual(tagVersions([sample('a', 'tool', 'tool'), sample('a', 'plan', 'plan')], versions).map((s) => s.policy_version), [5, 2]);
});

test('a task with one group older than the bound is taken out whole, and its groups are counted', () => {
  const versions = new Map([['tool', 4], ['plan', 4]]);
  const samples = [
    sample('a', 'tool', 'tool', 3), sample('a', 'tool', 'tool', 3, 1), sample('a', 'plan', 'plan', 1), // plan of task a: 3 old
    sample('b', 'tool', 'tool', 3), sample('b', 'plan', 'plan', 3),
  ];
  const split = splitStale(samples, versions, 2);
  assert.deepEqual(split.staleTasks, ['a']);
  assert.equal(split.requeuedGroups, 2, 'task a had a tool group and a plan group');
  assert.deepEqual(split.fresh.map((s) => s.task_id), ['b', 'b']);
  assert.equal(splitStale(samples, versions, 3).staleTasks.length, 0, 'at the bound is allowed');
  assert.throws(() => assertWithinStaleness(samples, versions, 2), /group a\|t0\|plan of policy 'plan' is 3 updates old, more than train.max_steps_off_policy = 2/);
  assert.doesNotThrow(() => assertWithinStaleness(split.fresh, versions, 2));
});

test('the histogram counts each group once, by staleness', () => {
  const versions = new Map([['shared', 2]]);
  const samples = [sample('a', 'tool', 'shared', 1), sample('a', 'tool', 'shared', 1, 1), sample('a', 'plan', 'shared', 2), sample('b', 'tool', 'shared', 1)];
  assert.deepEqual(stalenessHistogram(samples, versions), { '0': 1, '1': 2 });
});
