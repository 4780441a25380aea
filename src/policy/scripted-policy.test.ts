import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScriptedResponder } from '../envs/types.js';
import { Rng } from '../util/rng.js';
import { createScriptedPolicy, cutAtStop } from './scripted-policy.js';
import { scriptedPolicies } from './scripted-policies.js';
import type { SampleRequest } from './types.js';

// Echoes what the responder was given, plus one draw from its rng.
const echo: ScriptedResponder = ({ role, prompt, skill, rng }) => `${role}|${prompt}|${skill}|${rng.nextU32()}\nrest`;

function request(seed: number, n: number, stop: string[] = ['\n']): SampleRequest {
  return { prompt: 'P', n, seed, temperature: 1, topP: 1, topK: 0, maxTokens: 8, stop };
}

test('completion i draws from Rng.derive(request.seed, i); role and skill reach the responder', async () => {
  const policy = createScriptedPolicy({ responder: echo, role: 'plan', skill: 0.25 });
  assert.equal(policy.id, 'scripted');
  const [completions] = await policy.sample([request(42, 3)]);
  assert.equal(completions!.length, 3);
  completions!.forEach((c, i) => {
    assert.equal(c.text, `plan|P|0.25|${Rng.derive(42, i).nextU32()}`);
    assert.equal(c.finishReason, 'stop');
    assert.equal(c.ids, undefined);
    assert.equal(c.logprobs, undefined);
  });
});

test('results do not depend on batching', async () => {
  const policy = createScriptedPolicy({ responder: echo, role: 'tool', skill: 1 });
  const together = await policy.sample([request(1, 2), request(2, 2)]);
  const alone = await policy.sample([request(2, 2)]);
  assert.deepEqual(together[1], alone[0]);
  assert.notDeepEqual(together[0], together[1]);
});

test('text is cut at the earliest stop string, which is not returned', async () => {
  assert.equal(cutAtStop('ab\ncd', ['\n']), 'ab');
  assert.equal(cutAtStop('abXcd\n', ['\n', 'X']), 'ab');
  assert.equal(cutAtStop('abc', []), 'abc');
  assert.equal(cutAtStop('abc', ['']), 'abc');
  const policy = createScriptedPolicy({ responder: echo, role: 'tool', skill: 1 });
  const uncut = await policy.sample([request(1, 1, [])]);
  assert.ok(uncut[0]![0]!.text.endsWith('\nrest'));
});

test('scriptedPolicies returns one stable policy object per role', () => {
  const policyFor = scriptedPolicies(echo, 0.5);
  assert.equal(policyFor('tool'), policyFor('tool'));
  assert.notEqual(policyFor('tool'), policyFor('plan'));
});
