import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupBySeed, seedOf } from './seed-groups.js';

test('a trailing -seedN or -seed-N names the seed; anything else is no seed', () => {
  assert.deepEqual(seedOf('plan-path-lora-seed3'), { base: 'plan-path-lora', seed: 3 });
  assert.deepEqual(seedOf('plan-path-seed-12'), { base: 'plan-path', seed: 12 });
  assert.deepEqual(seedOf('sokoban-Seed2'), { base: 'sokoban', seed: 2 });
  for (const name of ['plan-path', 'seed1', 'plan-path-seedling', 'plan-path-seed1-long', 'plan-path-seed']) assert.equal(seedOf(name), undefined, name);
});

test('runs that differ only by the seed suffix form one group, seeds in order, groups in order of first appearance', () => {
  const names = ['a-seed2', 'b', 'a-seed-1', 'c-seed1', 'a-seed3', 'd-seed5', 'd-seed4'];
  const groups = groupBySeed(names.map((name) => ({ name })));
  assert.deepEqual(
    groups.map((g) => [g.name, g.members.map((m) => `${m.run.name}:${m.seed ?? '-'}`)]),
    [
      ['a', ['a-seed-1:1', 'a-seed2:2', 'a-seed3:3']],
      ['b', ['b:-']],
      ['c', ['c-seed1:1']], // one seed alone is a group of one
      ['d', ['d-seed4:4', 'd-seed5:5']],
    ],
  );
});

test('a group whose base is also a run without a seed suffix is named <base>-seed*, so no two rows share a name', () => {
  const groups = groupBySeed(['a', 'a-seed1', 'b-seed1', 'b-seed2', 'b'].map((name) => ({ name })));
  assert.deepEqual(
    groups.map((g) => [g.name, g.members.map((m) => `${m.run.name}:${m.seed ?? '-'}`)]),
    [
      ['a', ['a:-']],
      ['a-seed*', ['a-seed1:1']],
      ['b-seed*', ['b-seed1:1', 'b-seed2:2']],
      ['b', ['b:-']],
    ],
  );
});
