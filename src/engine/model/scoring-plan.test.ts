import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planScoring, planWholeSequences } from './scoring-plan.js';

test('identical prompts share one prompt-pass row block; rows and targets line up', () => {
  const plan = planScoring([
    { promptIds: [5, 6, 7], responseIds: [1, 2, 3] },
    { promptIds: [9], responseIds: [4] },
    { promptIds: [5, 6, 7], responseIds: [8, 8] },
  ]);
  assert.equal(plan.groups, 2, 'a group of K responses runs its prompt once');
  assert.deepEqual(plan.groupOf, [0, 1, 0]);
  assert.equal(plan.promptSeqLen, 3);
  assert.deepEqual(Array.from(plan.promptTokens), [5, 6, 7, 9, 0, 0]);
  assert.deepEqual(plan.promptLengths, [3, 1]);
  // Responses are fed without their last token: T = max(len - 1) = 2.
  assert.equal(plan.responseSeqLen, 2);
  assert.deepEqual(Array.from(plan.responseTokens), [1, 2, 0, 0, 8, 0]);
  assert.deepEqual(Array.from(plan.responsePositions), [3, 4, 1, 2, 3, 4]);
  // Head rows index [prompt rows (2*3); response rows (3*2)]: token 0 comes from the
  // prompt's last row, token j from response row j - 1.
  assert.deepEqual(Array.from(plan.headRows), [2, 6, 7, 3, 2, 10]);
  assert.deepEqual(Array.from(plan.targets), [1, 2, 3, 4, 8, 8]);
  assert.deepEqual(plan.offsets, [0, 3, 4, 6]);
});

test('an empty prompt is refused with the pair index', () => {
  assert.throws(() => planScoring([{ promptIds: [1], responseIds: [2] }, { promptIds: [], responseIds: [2] }]), /pair 1 has an empty prompt/);
});

test('pairs with distinct prompts run as whole sequences: prompt, then response without its last token', () => {
  const plan = planWholeSequences([
    { promptIds: [5, 6, 7], responseIds: [1, 2, 3] },
    { promptIds: [9], responseIds: [4] },
  ]);
  assert.equal(plan.batch, 2);
  assert.equal(plan.seqLen, 5, 'the longest: 3 prompt tokens + 2 response inputs');
  assert.deepEqual(Array.from(plan.tokens), [5, 6, 7, 1, 2, 9, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(plan.positions), [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
  // Token j of pair b comes from row b * 5 + lp - 1 + j.
  assert.deepEqual(Array.from(plan.headRows), [2, 3, 4, 5]);
  assert.deepEqual(Array.from(plan.targets), [1, 2, 3, 4]);
  assert.deepEqual(plan.offsets, [0, 3, 4]);
  assert.throws(() => planWholeSequences([{ promptIds: [], responseIds: [2] }]), /pair 0 has an empty prompt/);
});
