import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTraining } from './run-training.js';
import { runEval } from '../api/run-eval.js';
import { readSafetensors } from '../engine/io/safetensors.js';
import { testDir } from '../util/test-dir.test-helper.js';

const dir = testDir('troupe-train-');
const config = join(dir, 'tiny.yaml');
writeFileSync(
  config,
  `name: tiny
seed: 3
tasks: { name: plan-path, size: 4, min_distance: 1 }
team: { max_turns: 2 }
rollout: { k: 3, tasks: 3, max_tokens: 8 }
policy: { kind: embedded, map: per-role }
model: { hidden: 16, layers: 1, heads: 2, intermediate: 32, context: 80 }
warm_start: { episodes: 30, epochs: 1, batch_tokens: 2048, warmup_steps: 1 }
train: { steps: 4, warmup_steps: 1, eval_every: 2, eval_tasks: 6, checkpoint_every: 1, keep_checkpoints: 2, samples_every: 2 }
`,
);
const quiet = { write: () => true };

/** The deterministic part of a metrics file: every record without its timing fields. */
function deterministicMetrics(runDir: string): unknown[] {
  const timing = new Set(['elapsed_s', 'samples_per_s', 'tokens_per_s', 'rollout_s', 'update_s']);
  return readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line, (key, value) => (timing.has(key) ? undefined : value)));
}

test('a run stopped mid-way and resumed ends with the same metrics as an uninterrupted one', async () => {
  const whole = join(dir, 'whole');
  const result = await runTraining({ config, runDir: whole, stream: quiet });
  assert.equal(result.lastStep, 3);
  for (const f of ['config.yaml', 'metrics.jsonl', 'report.html', 'base/model.safetensors', 'rollouts/step-000001.jsonl']) assert.ok(existsSync(join(whole, f)), f);
  assert.deepEqual(readdirSync(join(whole, 'checkpoints')).sort(), ['step-000002', 'step-000003'], 'only the newest 2 checkpoints are kept');

  const split = join(dir, 'split');
  const first = await runTraining({ config, runDir: split, stream: quiet, stopAfterSteps: 2 });
  assert.equal(first.interrupted, true);
  assert.equal(first.lastStep, 1);
  await assert.rejects(runTraining({ config, runDir: split, stream: quiet }), /already holds a run; continue it with --resume/);
  const resumed = await runTraining({ config, runDir: split, stream: quiet, resume: true });
  assert.equal(resumed.lastStep, 3);

  const a = deterministicMetrics(whole);
  const b = deterministicMetrics(split);
  assert.equal(a.filter((r: any) => r.kind === 'train').length, 4);
  assert.deepEqual(b, a);
});

test('a run folder that spells out another default of a key it does not use still evaluates and resumes', async () => {
  // A version whose default model.lora.train_unembed was false wrote that into this per-role
  // run's config.yaml; today's default is true. The key does nothing under per-role, so it is
  // set aside, not a "has no effect here" error (which it is in a user's own file).
  const split = join(dir, 'split');
  const path = join(split, 'config.yaml');
  const text = readFileSync(path, 'utf8');
  assert.match(text, /train_unembed: true/);
  writeFileSync(path, text.replace('train_unembed: true', 'train_unembed: false'));
  await assert.rejects(runEval({ target: path, tasks: 2 }), /model\.lora: has no effect here/);
  const evaluated = await runEval({ target: split, tasks: 2 });
  assert.equal(evaluated.n, 2);
  const resumed = await runTraining({ config, runDir: split, stream: quiet, resume: true, set: ['train.steps=5'] });
  assert.equal(resumed.lastStep, 4);
  await assert.rejects(runTraining({ config, runDir: split, stream: quiet, resume: true, set: ['train.steps=6', 'rollout.k=2'] }), /rollout\.k: the run has 3, the config now says 2/);
});

test('per-role policies train separately and the eval command reads the run folder', async () => {
  const runDir = join(dir, 'whole');
  const lastTrain = deterministicMetrics(runDir).filter((r: any) => r.kind === 'train').at(-1) as any;
  assert.deepEqual(Object.keys(lastTrain.policies).sort(), ['plan', 'tool']);
  assert.equal(lastTrain.success_of, 'best-branch', 'tree K=3: training episodes follow the best branch');
  const evaluated = await runEval({ target: runDir, tasks: 6 });
  assert.equal(evaluated.n, 6);
  assert.match(evaluated.source, /checkpoints\/step-000003/);
  const lastEval = deterministicMetrics(runDir).filter((r: any) => r.kind === 'eval').at(-1) as any;
  assert.equal(evaluated.success_rate, lastEval.success_rate, 'eval of the final checkpoint reproduces the run\'s final eval');
});

test('a training config that is not embedded, or an eval without weights, says what to do', async () => {
  const scripted = join(dir, 'scripted.yaml');
  writeFileSync(scripted, 'tasks: { name: toy }\npolicy: { kind: scripted }\n');
  await assert.rejects(runTraining({ config: scripted, runDir: join(dir, 'x'), stream: quiet }), /troupe train trains embedded models/);
  const embedded = join(dir, 'embedded.yaml');
  writeFileSync(embedded, 'tasks: { name: toy }\npolicy: { kind: embedded }\n');
  await assert.rejects(runEval({ target: embedded }), /needs weights: give a run folder/);
});

test('train.frozen keeps a policy at its starting weights while the other one learns', async () => {
  const runDir = join(dir, 'frozen');
  await runTraining({ config, runDir, stream: quiet, set: ['train.steps=2', 'train.frozen=[plan]', 'train.eval_every=0', 'train.eval_tasks=2', 'advantage.estimator=raw'] });
  // raw advantages (the reward itself) give the tool a gradient even when every group ties
  const tensors = (path: string) => readSafetensors(join(runDir, path, 'model.safetensors')).tensors;
  const base = tensors('base');
  const final = (role: string) => tensors(`checkpoints/step-000001/policies/${role}`);
  const differing = (a: Map<string, { data: Float32Array }>, b: Map<string, { data: Float32Array }>) =>
    [...a.keys()].filter((name) => !a.get(name)!.data.every((x, i) => x === b.get(name)!.data[i]));
  assert.deepEqual(differing(base, final('plan')), [], 'the frozen plan policy is the warm-started base, bit for bit');
  assert.ok(differing(base, final('tool')).length > 0, 'the tool policy was updated');
  const records = deterministicMetrics(runDir).filter((r: any) => r.kind === 'train') as any[];
  assert.ok(records.every((r) => r.policies.plan.tokens === 0 && r.policies.plan.loss === null && r.policies.tool.tokens > 0));
  await assert.rejects(runTraining({ config, runDir: join(dir, 'frozen-bad'), stream: quiet, set: ['train.frozen=[planner]'] }), /train\.frozen: no role is played by policy 'planner'; policy ids in use: tool, plan/);
  await assert.rejects(runTraining({ config, runDir: join(dir, 'frozen-all'), stream: quiet, set: ['train.frozen=[plan, tool]'] }), /lists every policy/);
  assert.ok(!existsSync(join(dir, 'frozen-bad')) && !existsSync(join(dir, 'frozen-all')), 'a bad config creates no run folder');
});
