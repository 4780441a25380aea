// Tasks belong to the call that is given them: two calls in one process, at the same time, each
// with its own task called `same-name` (one always solved, one never), each play their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { testDir } from '../util/test-dir.test-helper.js';

const { defineConfig, defineTask, train, evaluate, rollout } = await import('troupe');

class Fixed {
  done = false;
  constructor(readonly taskId: string, readonly solved: boolean) {}
  get success() {
    return this.done && this.solved;
  }
  clone(): this {
    return Object.assign(new Fixed(this.taskId, this.solved), { done: this.done }) as this;
  }
}

/** A one-turn task called `same-name` whose episodes all succeed (`solved`) or all fail. */
function sameName(solved: boolean, role: string) {
  return defineTask({
    name: 'same-name',
    maxTurns: 1,
    source: () => ({ make: (i, split) => new Fixed(`same/${split}/${i}`, solved) }),
    team: () => ({
      roles: [{ name: role, prompt: () => 'go', parse: () => ({ ok: true as const, action: 0 }), step: (env: Fixed) => ((env.done = true), { local: 0 }) }],
      globalReward: (env: Fixed) => (env.success ? 1 : 0),
    }),
    scripted: () => '1',
  });
}

const always = sameName(true, 'WIN');
const never = sameName(false, 'LOSE');

test('rollout and evaluate: two concurrent calls with different tasks of one name each play their own', async () => {
  const scripted = { policy: { kind: 'scripted' as const, skill: 1 } };
  const [won, lost] = await Promise.all([rollout({ config: scripted, tasks: [always], count: 3 }), rollout({ config: scripted, tasks: [never], count: 3 })]);
  assert.deepEqual([won.summary.successRate, lost.summary.successRate], [1, 0]);
  assert.deepEqual([[...new Set(won.samples.map((s) => s.role))], [...new Set(lost.samples.map((s) => s.role))]], [['WIN'], ['LOSE']]);
  const [a, b] = await Promise.all([evaluate({ config: scripted, tasks: [always], count: 4 }), evaluate({ config: scripted, tasks: [never], count: 4 })]);
  assert.deepEqual([a.successRate, b.successRate], [1, 0]);
});

test('train: two concurrent runs with different tasks of one name each train and score their own', async () => {
  const dir = testDir('troupe-isolation-');
  const config = defineConfig({
    team: { format: 'compact' },
    rollout: { k: 2, tasks: 2, max_tokens: 2 },
    policy: { kind: 'embedded' },
    model: { hidden: 16, layers: 1, heads: 2, intermediate: 32, context: 16 },
    warm_start: { enabled: false },
    train: { steps: 1, eval_every: 1, eval_tasks: 4, checkpoint_every: 1 },
  });
  const [won, lost] = await Promise.all([
    train({ config, tasks: [always], runDir: join(dir, 'always'), progress: false }),
    train({ config, tasks: [never], runDir: join(dir, 'never'), progress: false }),
  ]);
  assert.deepEqual([won.finalEval?.success_rate, lost.finalEval?.success_rate], [1, 0]);
  const [a, b] = await Promise.all([evaluate({ run: join(dir, 'always'), tasks: [always], count: 4 }), evaluate({ run: join(dir, 'never'), tasks: [never], count: 4 })]);
  assert.deepEqual([a.successRate, b.successRate], [1, 0]);
});
