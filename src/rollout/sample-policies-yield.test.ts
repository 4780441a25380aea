// Every batched policy call lets the event loop turn first, so a server or timer of the same
// program is answered between the batches of an evaluation, not only between training steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Policy } from '../policy/types.js';
import { samplePolicies } from './sample-policies.js';

test('a batch of policy calls starts only after pending event-loop callbacks ran', async () => {
  let timerRan = false;
  const seen: boolean[] = [];
  // A synchronous policy, as the embedded one computes: it records whether the loop turned.
  const policy: Policy = {
    id: 'sync',
    sample: (requests) => {
      seen.push(timerRan);
      return Promise.resolve(requests.map((r) => Array.from({ length: r.n }, () => ({ text: 'x', finishReason: 'stop' as const }))));
    },
  };
  const request = { prompt: 'p', n: 1, seed: 0, temperature: 1, topP: 1, topK: 0, maxTokens: 1, stop: [] };
  for (let batch = 0; batch < 3; batch++) {
    timerRan = false;
    setImmediate(() => (timerRan = true));
    await samplePolicies([{ policy, request }]);
  }
  assert.deepEqual(seen, [true, true, true]);
});
