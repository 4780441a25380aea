import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TroupeError } from '../util/errors.js';
import { checkJointGroups } from './check-joint-groups.js';
import type { Sample } from './types.js';

function sample(over: Partial<Sample>): Sample {
  const base: Sample = {
    task_id: 'a',
    turn: 0,
    role: 'x',
    group: 'a|n0|x',
    branch: 0,
    node: '0',
    prompt: 'P',
    response: 'r',
    reward: { local: 0, global: 0, total: 0 },
    score: 0,
    advantage: 0,
    policy: 'p',
    finish_reason: 'stop',
  };
  return { ...base, ...over };
}

/** Root and child 0.1 of one task, two roles, G = 2. */
function tree(): Sample[] {
  const out: Sample[] = [];
  for (const [node, turn] of [['0', 0], ['0.1', 1]] as const) {
    for (const role of ['x', 'y']) {
      for (const branch of [0, 1]) out.push(sample({ node, turn, role, branch, group: `a|n${node}|${role}`, prompt: `${role}@${node}` }));
    }
  }
  return out;
}

function broken(samples: Sample[], pattern: RegExp): void {
  assert.throws(() => checkJointGroups(samples, 2), (e: unknown) => e instanceof TroupeError && e.category === 'invariant' && pattern.test(e.message));
}

test('a correct joint tree passes', () => {
  checkJointGroups(tree(), 2);
});

test('wrong keys, turns, sizes, prompts, roles or orphan nodes are invariant errors', () => {
  const t = tree();
  broken(t.map((s, i) => (i === 0 ? { ...s, group: 'a|t0|x' } : s)), /should be "a\|n0\|x"/);
  broken(t.map((s, i) => (i === 4 ? { ...s, turn: 0 } : s)), /node 0\.1 has turn 0, expected 1/);
  broken(t.slice(1), /has 1 samples, expected G = 2/);
  broken(t.map((s, i) => (i === 1 ? { ...s, branch: 0 } : s)), /responses 0,0/);
  broken(t.map((s, i) => (i === 1 ? { ...s, prompt: 'Q' } : s)), /differing prompts/);
  broken(t.filter((s) => !(s.node === '0.1' && s.role === 'y')), /roles x, other nodes x,y|roles x,y, other nodes x/);
  broken(t.filter((s) => s.node !== '0'), /no parent node/);
  broken(t.map((s) => (s.node === '0.1' ? { ...s, task_id: 'b', group: `b|n0.1|${s.role}` } : s)), /b\|n0\.1 has no parent/);
  const { node: _node, ...noNode } = t[0]!;
  broken([noNode as Sample, ...t.slice(1)], /has no node path/);
});
