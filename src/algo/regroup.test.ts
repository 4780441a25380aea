import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeAdvantages } from './compute-advantages.js';
import { regroup, type Grouping } from './regroup.js';

// Two roles, two turns of one task, two branches per node: scores chosen so that every
// grouping gives different advantages.
const samples = [
  { task_id: 'a', turn: 0, role: 'tool', score: 1, s: 'A' },
  { task_id: 'a', turn: 0, role: 'tool', score: 0, s: 'B' },
  { task_id: 'a', turn: 0, role: 'plan', score: 6, s: 'C' },
  { task_id: 'a', turn: 0, role: 'plan', score: 5, s: 'D' },
  { task_id: 'a', turn: 1, role: 'tool', score: 5, s: 'E' },
  { task_id: 'a', turn: 1, role: 'tool', score: 4, s: 'F' },
].map((s) => ({ ...s, group: `${s.task_id}|t${s.turn}|${s.role}`, advantage: 0 }));

const groupsOf = (g: Grouping) => new Set(regroup(samples, g).map((s) => s.group)).size;

test('each grouping pools the samples it names', () => {
  assert.equal(groupsOf('task-turn-role'), 3);
  assert.equal(groupsOf('task-role'), 2); // tool over turns 0 and 1; plan
  assert.equal(groupsOf('task-turn'), 2); // turn 0 over both roles; turn 1
  assert.equal(groupsOf('task'), 1);
});

test('the default grouping leaves the samples untouched', () => {
  assert.equal(regroup(samples, 'task-turn-role'), samples);
});

test('advantages follow the grouping: agent-wise compares tool turns with each other', () => {
  const byTurn = computeAdvantages(regroup(samples, 'task-turn-role'), 'mean').samples;
  const byAgent = computeAdvantages(regroup(samples, 'task-role'), 'mean').samples;
  const one = computeAdvantages(regroup(samples, 'task'), 'mean').samples;
  assert.deepEqual(byTurn.map((s) => s.advantage), [0.5, -0.5, 0.5, -0.5, 0.5, -0.5]);
  // tool over turns 0-1: mean 2.5; plan alone: mean 5.5
  assert.deepEqual(byAgent.map((s) => s.advantage), [-1.5, -2.5, 0.5, -0.5, 2.5, 1.5]);
  // all six: mean 3.5
  assert.deepEqual(one.map((s) => s.advantage), [-2.5, -3.5, 2.5, 1.5, 1.5, 0.5]);
  const byTurnOnly = computeAdvantages(regroup(samples, 'task-turn'), 'mean').samples;
  // turn 0 over both roles: mean 3; turn 1: mean 4.5
  assert.deepEqual(byTurnOnly.map((s) => s.advantage), [-2, -3, 3, 2, 0.5, -0.5]);
});
