import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jointActionCount, jointActions } from './magrpo-joint-actions.js';

test('aligned: G joint actions, the g-th response of every agent', () => {
  assert.deepEqual(jointActions('aligned', 3, 2), [
    [0, 0, 0],
    [1, 1, 1],
  ]);
  assert.equal(jointActionCount('aligned', 3, 2), 2);
});

test('cross: the Cartesian product in base-G order, first agent most significant', () => {
  assert.deepEqual(jointActions('cross', 2, 3), [
    [0, 0], [0, 1], [0, 2],
    [1, 0], [1, 1], [1, 2],
    [2, 0], [2, 1], [2, 2],
  ]);
  const three = jointActions('cross', 3, 2);
  assert.equal(three.length, 8);
  assert.deepEqual(three[5], [1, 0, 1]);
  assert.equal(new Set(three.map((a) => a.join())).size, 8, 'every combination once');
  assert.equal(jointActionCount('cross', 3, 2), 8);
});

test('one agent: aligned and cross agree', () => {
  assert.deepEqual(jointActions('cross', 1, 4), jointActions('aligned', 1, 4));
});
