import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Policy } from '../../policy/types.js';
import { PhaseProgress } from './phase-progress.js';

test('a long phase prints a line once the interval has passed, a quick one prints nothing', async () => {
  let now = 0;
  const lines: string[] = [];
  const phases = new PhaseProgress({ log: (line) => lines.push(line), everyMs: 10_000, clock: () => now });
  const inner: Policy = { id: 'shared', sample: async (requests) => requests.map((r) => Array.from({ length: r.n }, () => ({ text: 'x', finishReason: 'stop' as const }))) };
  const policyFor = phases.watch(() => inner);
  assert.equal(policyFor('tool'), policyFor('plan'), 'roles sharing a policy share the wrapper');
  phases.begin('base evaluation');
  now = 4_000;
  await policyFor('tool').sample([{ prompt: 'a', n: 3, seed: 1, maxTokens: 1, temperature: 1, topP: 1, topK: 0, stop: [] }]);
  assert.deepEqual(lines, [], 'no line before the interval');
  now = 12_000;
  await policyFor('plan').sample([{ prompt: 'b', n: 2, seed: 1, maxTokens: 1, temperature: 1, topP: 1, topK: 0, stop: [] }]);
  assert.deepEqual(lines, ['base evaluation: 5 completions so far, 12 s']);
  phases.begin('step 1/40');
  now = 15_000;
  phases.tick("update of 'shared', micro-batch 1/4");
  now = 22_001;
  phases.tick("update of 'shared', micro-batch 2/4");
  assert.deepEqual(lines.slice(1), ["step 1/40: update of 'shared', micro-batch 2/4, 10 s"]);
});
