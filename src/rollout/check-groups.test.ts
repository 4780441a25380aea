import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TroupeError } from '../util/errors.js';
import { checkGroups } from './check-groups.js';
import type { Sample } from './types.js';

function sample(over: Partial<Sample>): Sample {
  const base: Sample = {
    task_id: 'a',
    turn: 0,
    role: 'tool',
    group: 'a|t0|tool',
    branch: 0,
    chosen: false,
    prompt: 'P',
    response: 'x',
    reward: { local: 0, global: 0, total: 0 },
    score: 0,
    advantage: 0,
    policy: 'p',
    finish_reason: 'stop',
  };
  return { ...base, ...over };
}

const node = () => [sample({ branch: 0, chosen: true }), sample({ branch: 1 })];

function broken(samples: Sample[], mode: 'tree' | 'independent', pattern: RegExp): void {
  assert.throws(() => checkGroups(samples, mode, 2), (e: unknown) => e instanceof TroupeError && e.category === 'invariant' && pattern.test(e.message));
}

test('a correct tree node passes', () => {
  checkGroups(node(), 'tree', 2);
});

test('tree nodes: differing prompts, wrong size, mixed tasks, no chosen branch are invariant errors', () => {
  const [a, b] = node();
  broken([a!, { ...b!, prompt: 'Q' }], 'tree', /differing prompts/);
  broken([a!], 'tree', /1 samples, expected K = 2/);
  broken([a!, { ...b!, task_id: 'b' }], 'tree', /should be "b\|t0\|tool"/);
  broken([a!, { ...b!, chosen: true }], 'tree', /exactly one chosen/);
  broken([a!, { ...b!, branch: 0 }], 'tree', /branches 0,0/);
});

test('independent groups: key per (task, role), one score per episode', () => {
  const ok = [sample({ group: 'a|tool', episode: 0, score: 1 }), sample({ group: 'a|tool', episode: 1, turn: 1, prompt: 'other', score: 2 })];
  checkGroups(ok, 'independent', 2);
  broken([ok[0]!, { ...ok[1]!, episode: 0 }], 'independent', /differing scores/);
  broken([ok[0]!, { ...ok[1]!, episode: 2 }], 'independent', /episode 2/);
  broken([{ ...ok[0]!, group: 'a|t0|tool' }], 'independent', /should be "a\|tool"/);
});
