// evaluate() and rollout() on a policy.kind tinker config pass `onWait` down to the Tinker
// client, and `troupe eval` and `troupe rollout` print what it hears on stderr: the same
// `still waiting for ... (N min)` lines as `troupe train` while a slow service keeps a request
// pending. The stand-in service steps Date.now by 25 s on each poll (the client's default
// clock), so no test really waits.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evalCommand } from '../cli/eval-command.js';
import { rolloutCommand } from '../cli/rollout-command.js';
import { fixtureDir } from '../engine/tokenizer/fixtures.test-helper.js';
import { startSlowTinkerService, type SlowTinkerService } from '../tinker/slow-tinker-service.test-helper.js';
import { testDir } from '../util/test-dir.test-helper.js';

const { evaluate, rollout } = await import('troupe');

/** A service whose first sample stays pending for 6 polls (150 s of the stepped clock). */
async function slowService(t: TestContext): Promise<SlowTinkerService> {
  let clock = Date.now();
  t.mock.method(Date, 'now', () => clock);
  const service = await startSlowTinkerService(6, { tryAgain: true, onPoll: () => (clock += 25_000) });
  process.env.TINKER_API_KEY = 'tml-test';
  t.after(async () => {
    delete process.env.TINKER_API_KEY;
    await service.close();
  });
  return service;
}

const configOf = (url: string) => ({
  tasks: { name: 'toy' },
  team: { format: 'compact' as const },
  rollout: { k: 2, tasks: 1, max_tokens: 1 },
  train: { eval_tasks: 1 },
  policy: { kind: 'tinker' as const, tinker: { base_url: url, base_model: 'm' } },
  model: { path: fixtureDir('bytelevel-bpe') },
});

const minuteLines = (url: string) => [`still waiting for asample request r1 from ${url} (1 min)`, `still waiting for asample request r1 from ${url} (2 min)`];

test('evaluate on a tinker policy reports each minute a request is pending through onWait', async (t) => {
  const service = await slowService(t);
  const waits: string[] = [];
  const score = await evaluate({ config: configOf(service.url), onWait: (m) => waits.push(m) });
  assert.equal(score.n, 1);
  assert.deepEqual(waits, minuteLines(service.url));
});

test('rollout on a tinker policy reports each minute a request is pending through onWait', async (t) => {
  const service = await slowService(t);
  const waits: string[] = [];
  const played = await rollout({ config: configOf(service.url), onWait: (m) => waits.push(m) });
  assert.ok(played.summary.samples > 0);
  assert.deepEqual(waits, minuteLines(service.url));
});

test('troupe eval and troupe rollout print those lines on stderr', async (t) => {
  const dir = testDir('troupe-tinker-waits-');
  for (const [name, command, extra] of [
    ['eval', evalCommand, []],
    ['rollout', rolloutCommand, ['--out', join(dir, 'rollout.jsonl')]],
  ] as const) {
    await t.test(name, async (t) => {
      const service = await slowService(t);
      const config = join(dir, `${name}.json`);
      writeFileSync(config, JSON.stringify(configOf(service.url)));
      let stderr = '';
      t.mock.method(process.stderr, 'write', (text: string) => ((stderr += text), true));
      await command().parseAsync([config, ...extra], { from: 'user' });
      t.mock.restoreAll();
      assert.deepEqual(stderr.split('\n').filter((line) => line.startsWith('still waiting')), minuteLines(service.url));
    });
  }
});
