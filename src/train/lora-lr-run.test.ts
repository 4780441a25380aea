// The LoRA learning-rate rule reaches the learner: a tiny embedded LoRA run records the rate it
// trained at in metrics.jsonl (one step, no warm-up: the schedule's peak) and says so once at
// the start; an explicit train.lora_lr is used as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runTraining } from './run-training.js';
import { metricsWithoutTiming, tinyRun } from './tiny-run.test-helper.js';

const { dir, config } = tinyRun({ map: 'lora', prefix: 'troupe-lora-lr-', train: '{ steps: 1, lr: 0.002, warmup_steps: 0, eval_every: 0, eval_tasks: 2, checkpoint_every: 0, samples_every: 0 }' });

async function trainedRate(name: string, set: readonly string[]): Promise<{ lr: number; log: string }> {
  let log = '';
  const runDir = join(dir, name);
  await runTraining({ config, runDir, set, stream: { write: (text: string) => ((log += text), true) } });
  const steps = metricsWithoutTiming(runDir).filter((r) => r.kind === 'train');
  assert.equal(steps.length, 1);
  return { lr: steps[0].lr, log };
}

/** The schedule's peak is min + (max - min), equal to max up to rounding. */
const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `trained at ${actual}, expected ${expected}`);

test('a LoRA run trains at train.lr x train.lora_lr_scale and prints the rate once', async () => {
  const { lr, log } = await trainedRate('rule', ['train.lora_lr_scale=10']);
  near(lr, 0.02); // 0.002 x 10
  const lines = log.split('\n').filter((l) => l.includes('LoRA learning rate'));
  assert.deepEqual(lines, ['LoRA learning rate 0.02 (train.lr 0.002 x train.lora_lr_scale 10; set train.lora_lr to choose it)']);
});

test('an explicit train.lora_lr wins, and the run does not claim the rule', async () => {
  const { lr, log } = await trainedRate('explicit', ['train.lora_lr=0.005']);
  near(lr, 0.005);
  assert.doesNotMatch(log, /LoRA learning rate/);
});

test('full fine-tuning (map per-role) still trains at train.lr', async () => {
  const { lr, log } = await trainedRate('full', ['policy.map=per-role']);
  near(lr, 0.002);
  assert.doesNotMatch(log, /LoRA learning rate/);
});
