// Asynchronous training end to end on the embedded engine (train.max_steps_off_policy): the
// schedule's staleness, exact resume with rollouts in flight, the requeue of groups that
// became too old, and the MAGRPO opt-in. The Tinker route's overlap is tested in
// src/train/tinker-async.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTraining } from '../run-training.js';
import { tinyRun } from '../tiny-run.test-helper.js';

const quiet = { write: () => true };
// lr 0.05 and raw advantages (the reward itself, a gradient even when every group ties): the
// weights move enough every step that a sample one update old is visibly off-policy.
const { dir, config } = tinyRun({ prefix: 'troupe-async-', map: 'per-role', train: '{ steps: 5, lr: 0.05, warmup_steps: 1, eval_every: 0, eval_tasks: 4, checkpoint_every: 1, keep_checkpoints: 5, samples_every: 1 }' });
writeFileSync(config, `${readFileSync(config, 'utf8')}advantage: { estimator: raw }\n`);

const records = (runDir: string) => readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const trainRecords = (runDir: string) => records(runDir).filter((r) => r.kind === 'train');
/** Every record without its timing fields. */
const deterministic = (runDir: string) => {
  const timing = new Set(['elapsed_s', 'samples_per_s', 'tokens_per_s', 'rollout_s', 'update_s']);
  return readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l, (k, v) => (timing.has(k) ? undefined : v)));
};

test('s = 1: step 0 trains fresh samples, every later step samples one update old, none older', async () => {
  const runDir = join(dir, 's1');
  await runTraining({ config, runDir, stream: quiet, set: ['train.max_steps_off_policy=1'] });
  const steps = trainRecords(runDir);
  assert.equal(steps.length, 5);
  assert.deepEqual(steps.map((r) => r.off_policy.max_staleness), [0, 1, 1, 1, 1]);
  for (const r of steps) {
    assert.deepEqual(Object.keys(r.off_policy.staleness), [String(r.off_policy.max_staleness)]);
    assert.equal(r.off_policy.requeued_groups, 0);
    assert.ok(r.off_policy.trained_groups > 0);
  }
  assert.ok(steps[0].off_policy.logprob_gap_max < 1e-3, 'fresh samples match the learner');
  assert.ok(steps.slice(1).some((r) => r.off_policy.logprob_gap_max > 1e-3), 'stale ones do not, and the gap is reported instead of stopping the run');
  // The loss is decoupled PPO: each stale token is weighted by min(pi_learner / pi_sampler, tis_cap = 2).
  assert.ok(steps.every((r) => r.off_policy.is_weight_min > 0 && r.off_policy.is_weight_max <= 2));
  assert.ok(steps.slice(1).some((r) => r.off_policy.is_weight_max - r.off_policy.is_weight_min > 1e-3), 'stale tokens get weights other than 1');
  assert.ok(steps.every((r) => Object.values(r.policies).every((p: any) => p.is_weight_mean !== undefined)), 'the learners ran decoupled PPO (old_logprobs auto -> learner)');
  const rollout = readFileSync(join(runDir, 'rollouts', 'step-000003.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(rollout.every((s) => s.policy_version === 2), 'step 3 was sampled after 2 updates (tiny runs update both policies every step)');
  const pending = JSON.parse(readFileSync(join(runDir, 'checkpoints', 'step-000002', 'pipeline.json'), 'utf8'));
  assert.deepEqual(pending.pending.map((r: { step: number }) => r.step), [3], 'the checkpoint of step 2 holds the finished rollout of step 3');
  assert.deepEqual(pending.versions, { tool: 3, plan: 3 });
});

test('s = 0 records carry no off-policy section and checkpoints no pipeline file', async () => {
  const runDir = join(dir, 's0');
  await runTraining({ config, runDir, stream: quiet, set: ['train.steps=2'] });
  assert.ok(trainRecords(runDir).every((r) => r.off_policy === undefined));
  assert.ok(!existsSync(join(runDir, 'checkpoints', 'step-000001', 'pipeline.json')));
  const samples = readFileSync(join(runDir, 'rollouts', 'step-000001.jsonl'), 'utf8');
  assert.ok(!samples.includes('policy_version'));
});

for (const s of [1, 2]) {
  test(`s = ${s}: stopped after each of steps 0-3 and resumed, the run equals the uninterrupted one, no group trained twice or lost`, async () => {
    const whole = join(dir, `whole-${s}`);
    const set = [`train.max_steps_off_policy=${s}`];
    await runTraining({ config, runDir: whole, stream: quiet, set });
    for (const stopAfter of [1, 2, 3, 4]) {
      const split = join(dir, `split-${s}-${stopAfter}`);
      await runTraining({ config, runDir: split, stream: quiet, set, stopAfterSteps: stopAfter });
      await runTraining({ config, runDir: split, stream: quiet, set, resume: true });
      assert.deepEqual(deterministic(split), deterministic(whole), `stopped after ${stopAfter} step(s)`);
      for (const step of readdirSync(join(whole, 'rollouts'))) {
        assert.equal(readFileSync(join(split, 'rollouts', step), 'utf8'), readFileSync(join(whole, 'rollouts', step), 'utf8'), step);
      }
    }
    const trained = trainRecords(whole).reduce((n, r) => n + r.off_policy.trained_groups, 0);
    const groups = readdirSync(join(whole, 'rollouts')).flatMap((f) => readFileSync(join(whole, 'rollouts', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l).group as string));
    assert.equal(new Set(groups).size, trained, 'every group was trained exactly once');
  });
}

test('a damaged pipeline.json in the newest checkpoint: resume falls back to the one before and ends as the uninterrupted run', async () => {
  const set = ['train.max_steps_off_policy=1'];
  const whole = join(dir, 'whole-1');
  if (!existsSync(whole)) await runTraining({ config, runDir: whole, stream: quiet, set });
  const runDir = join(dir, 'damaged-pipeline');
  await runTraining({ config, runDir, stream: quiet, set, stopAfterSteps: 3 });
  const newest = join(runDir, 'checkpoints', 'step-000002', 'pipeline.json');
  truncateSync(newest, Math.floor(statSync(newest).size / 2));
  let printed = '';
  await runTraining({ config, runDir, stream: { write: (text: string) => ((printed += text), true) }, set, resume: true });
  assert.match(printed, /warning: checkpoint step-000002 is damaged \(.*pipeline\.json does not parse .*\); resuming from step-000001/);
  assert.deepEqual(deterministic(runDir), deterministic(whole));
});

test('a group older than s when its update comes is sampled again (counted), never trained', async () => {
  const runDir = join(dir, 'requeue');
  const set = ['train.max_steps_off_policy=1'];
  await runTraining({ config, runDir, stream: quiet, set, stopAfterSteps: 2 });
  // Age the rollout in flight: as if it had been sampled 3 updates before step 1's weights.
  const file = join(runDir, 'checkpoints', 'step-000001', 'pipeline.json');
  const state = JSON.parse(readFileSync(file, 'utf8'));
  const old = state.pending[0].samples.find((x: { task_id: string }) => x.task_id !== undefined);
  for (const sample of state.pending[0].samples) if (sample.task_id === old.task_id) sample.policy_version -= 3;
  writeFileSync(file, JSON.stringify(state));
  await runTraining({ config, runDir, stream: quiet, set, resume: true });
  const step2 = trainRecords(runDir).find((r) => r.step === 2);
  assert.ok(step2.off_policy.requeued_groups > 0);
  assert.ok(step2.off_policy.max_staleness <= 1);
  const rollout = readFileSync(join(runDir, 'rollouts', 'step-000002.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(rollout.filter((x) => x.task_id === old.task_id).every((x) => x.policy_version === 2), 'the requeued task was played with the current weights');
});

test('MAGRPO\'s reinforce loss stays on-policy unless the user opts in', async () => {
  const magrpo = join(dir, 'magrpo.yaml');
  writeFileSync(magrpo, readFileSync(config, 'utf8').replace('name: tiny', 'name: tiny\nalgorithm: magrpo').replace('rollout: { k: 2,', 'rollout: { k: 2, mode: joint,'));
  await assert.rejects(runTraining({ config: magrpo, runDir: join(dir, 'magrpo'), stream: quiet, set: ['train.max_steps_off_policy=1'] }), /train.loss reinforce \(MAGRPO's\) has no importance ratio .*train.allow_off_policy_reinforce: true/);
  assert.ok(!existsSync(join(dir, 'magrpo')));
  await runTraining({ config: magrpo, runDir: join(dir, 'magrpo-ok'), stream: quiet, set: ['train.max_steps_off_policy=1', 'train.allow_off_policy_reinforce=true', 'train.steps=2'] });
  assert.deepEqual(trainRecords(join(dir, 'magrpo-ok')).map((r) => r.off_policy.max_staleness), [0, 1]);
});
