import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Sample } from '../rollout/types.js';
import { routeSamples } from './router.js';

function sample(policy: string, role: string, advantage: number, ids = true): Sample {
  return {
    task_id: 't0', turn: 0, role, group: `t0|t0|${role}`, branch: 0, prompt: 'P', response: 'R',
    reward: { local: 0, global: 0, total: 0 }, score: 0, advantage, policy, finish_reason: 'stop',
    ...(ids ? { prompt_ids: [1, 2], response_ids: [3], logprobs: [-0.5] } : {}),
  };
}

test('per-role policies each receive only their own samples', () => {
  const routed = routeSamples([sample('tool', 'tool', 1), sample('plan', 'plan', -1), sample('tool', 'tool', 0.5)], new Set(['tool', 'plan']));
  assert.deepEqual(routed.byPolicy.get('tool')!.map((s) => s.advantage), [1, 0.5]);
  assert.deepEqual(routed.byPolicy.get('plan')!.map((s) => s.advantage), [-1]);
});

test('a shared policy receives every role', () => {
  const routed = routeSamples([sample('shared', 'tool', 1), sample('shared', 'plan', -1)], new Set(['shared']));
  assert.equal(routed.byPolicy.get('shared')!.length, 2);
});

test('samples of non-trainable policies are counted, not trained; id-less trainable samples are an error', () => {
  const routed = routeSamples([sample('scripted', 'tool', 1, false), sample('plan', 'plan', 1)], new Set(['plan']));
  assert.equal(routed.untrained.get('scripted'), 1);
  assert.throws(() => routeSamples([sample('plan', 'plan', 1, false)], new Set(['plan'])), /no token ids/);
});
