import { test } from 'node:test';
import assert from 'node:assert/strict';
import { creditResponses } from './magrpo-credit.js';
import { jointActions } from './magrpo-joint-actions.js';

test('aligned: each response gets its joint action return', () => {
  const credits = creditResponses({ responses_J_N: jointActions('aligned', 2, 3), returns_J: [1, 5, -2], g: 3, rule: 'sum' });
  assert.deepEqual(credits, [
    [1, 5, -2],
    [1, 5, -2],
  ]);
});

test('cross: sum (or mean) of the returns of the joint actions containing the response', () => {
  // G = 2, agents (a, b); joint actions (a0,b0)=1, (a0,b1)=2, (a1,b0)=4, (a1,b1)=8.
  const input = { responses_J_N: jointActions('cross', 2, 2), returns_J: [1, 2, 4, 8], g: 2 };
  assert.deepEqual(creditResponses({ ...input, rule: 'sum' }), [
    [3, 12], // a0: 1 + 2, a1: 4 + 8
    [5, 10], // b0: 1 + 4, b1: 2 + 8
  ]);
  assert.deepEqual(creditResponses({ ...input, rule: 'mean' }), [
    [1.5, 6],
    [2.5, 5],
  ]);
});

test('cross with three agents: each response is in G^(n-1) joint actions', () => {
  const responses_J_N = jointActions('cross', 3, 2);
  const returns_J = responses_J_N.map((_, j) => j); // 0..7
  const credits = creditResponses({ responses_J_N, returns_J, g: 2, rule: 'sum' });
  // agent 0 response 1 is in j = 4..7; agent 2 response 0 is in the even j.
  assert.equal(credits[0]![1], 4 + 5 + 6 + 7);
  assert.equal(credits[2]![0], 0 + 2 + 4 + 6);
  assert.equal(creditResponses({ responses_J_N, returns_J, g: 2, rule: 'mean' })[1]![1], (2 + 3 + 6 + 7) / 4);
});
