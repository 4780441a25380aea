// Ctrl-C during a step: the step finishes, a checkpoint is saved, the CLI exits with code 130 and
// a message saying how to continue, and --resume then completes the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath as cli, interruptWhen, tinyRun } from './tiny-run.test-helper.js';

const { dir, config } = tinyRun({ prefix: 'troupe-int-', map: 'shared', train: '{ steps: 30, eval_every: 0, eval_tasks: 2, checkpoint_every: 0, samples_every: 0 }' });

test('Ctrl-C saves a checkpoint after the current step; --resume finishes the run', async () => {
  const runDir = join(dir, 'run');
  const { code, stderr } = await interruptWhen(['train', config, '--run-dir', runDir], /step \d+ \(\d+\/30\)/);
  assert.equal(code, 130, stderr);
  assert.match(stderr, /stopping after this step/);
  assert.match(stderr, /stopped after step (\d+); continue with: troupe train \S+tiny\.yaml --resume/);
  const saved = readdirSync(join(runDir, 'checkpoints'));
  assert.equal(saved.length, 1);
  const stoppedAt = Number(/stopped after step (\d+)/.exec(stderr)![1]);
  assert.equal(saved[0], `step-${String(stoppedAt).padStart(6, '0')}`);
  assert.ok(stoppedAt < 29, 'the run really stopped early');

  const changed = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir, '--resume', '--set', 'train.lr=0.5'], { encoding: 'utf8' });
  assert.equal(changed.status, 2);
  assert.match(changed.stderr, /config error: .*train\.lr: the run has 0\.001, the config now says 0\.5/);
  const resumed = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir, '--resume'], { encoding: 'utf8' });
  assert.equal(resumed.status, 0, resumed.stderr);
  const steps = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.kind === 'train').map((r) => r.step);
  assert.deepEqual(steps, Array.from({ length: 30 }, (_, i) => i), 'every step exactly once');
});
