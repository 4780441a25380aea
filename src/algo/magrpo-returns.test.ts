import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TroupeError } from '../util/errors.js';
import { jointReturns, type JointTreeNode } from './magrpo-returns.js';

const leaf = (...rewards_J: number[]): JointTreeNode => ({ rewards_J, children_J: rewards_J.map(() => undefined) });

test('a leaf node: R = r', () => {
  const node = leaf(1, -2, 0.5);
  assert.deepEqual(jointReturns(node, 0.9).get(node), [1, -2, 0.5]);
});

test('three levels: R = r + gamma * mean(children R), computed for every node', () => {
  // root --j0--> a --j1--> b ; root j1 is a leaf, a j0 is a leaf.
  const b = leaf(4, 2); // R_b = [4, 2], mean 3
  const a: JointTreeNode = { rewards_J: [1, 0], children_J: [undefined, b] }; // R_a = [1, 0 + 0.5*3] = [1, 1.5]
  const root: JointTreeNode = { rewards_J: [2, 3], children_J: [a, undefined] }; // R = [2 + 0.5*1.25, 3]
  const returns = jointReturns(root, 0.5);
  assert.deepEqual(returns.get(b), [4, 2]);
  assert.deepEqual(returns.get(a), [1, 1.5]);
  assert.deepEqual(returns.get(root), [2.625, 3]);
  assert.equal(returns.size, 3);
});

test('gamma 0 keeps the immediate rewards; gamma out of [0, 1] is an invariant error', () => {
  const child = leaf(10, 20);
  const root: JointTreeNode = { rewards_J: [1], children_J: [child] };
  assert.deepEqual(jointReturns(root, 0).get(root), [1]);
  assert.deepEqual(jointReturns(root, 1).get(root), [16]);
  assert.throws(() => jointReturns(root, 1.5), (e: unknown) => e instanceof TroupeError && /gamma/.test(e.message));
});
