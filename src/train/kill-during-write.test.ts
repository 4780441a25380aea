// Real crashes in the middle of a write: `troupe train` is SIGKILLed while it writes step 2's
// checkpoint, the warm-started base model or a rollouts file (held there by a test-only
// failpoint, util/test-failpoint.ts: a tiny model's writes take milliseconds). --resume must
// remove what the write left half done, continue from the newest complete checkpoint and end
// exactly as an uninterrupted run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { spawnAtFailpoint } from '../util/troupe-child.test-helper.js';
import { runTraining } from './run-training.js';
import { cliPath as cli, metricsWithoutTiming, tinyRun } from './tiny-run.test-helper.js';

const { dir, config } = tinyRun({ prefix: 'troupe-kill-ckpt-', map: 'shared', train: '{ steps: 4, eval_every: 2, eval_tasks: 2, checkpoint_every: 1, keep_checkpoints: 3, samples_every: 2 }' });
const weights = (runDir: string) => readFileSync(join(runDir, 'checkpoints', 'step-000003', 'policies', 'shared', 'model.safetensors'));

test('SIGKILL while a checkpoint is being written: --resume removes the half-written folder and ends as an uninterrupted run', async () => {
  const whole = join(dir, 'whole');
  await runTraining({ config, runDir: whole, stream: { write: () => true } });

  const runDir = join(dir, 'killed');
  const child = spawnAtFailpoint(['train', config, '--run-dir', runDir], 'atomic-write:.tmp-step-000002-');
  const writing = await child.reached;
  const { signal } = await child.kill();
  assert.equal(signal, 'SIGKILL');
  // The kill landed inside step 2's checkpoint: its temporary folder is there, half written, and no step-000002.
  const tempFolder = relative(join(runDir, 'checkpoints'), writing).split(sep)[0]!;
  assert.match(tempFolder, /^\.tmp-step-000002-\d+$/);
  assert.deepEqual(readdirSync(join(runDir, 'checkpoints')).sort(), [tempFolder, 'step-000000', 'step-000001']);
  assert.ok(!existsSync(join(runDir, 'checkpoints', tempFolder, 'state.json')), 'the save had not finished');

  const resumed = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir, '--resume'], { encoding: 'utf8' });
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`removed 1 unfinished checkpoint folder\\(s\\) an interrupted save left \\(${tempFolder.replace('.', '\\.')}\\)`));
  assert.match(resumed.stderr, /resuming after step 1 /);
  assert.deepEqual(readdirSync(join(runDir, 'checkpoints')).sort(), ['step-000001', 'step-000002', 'step-000003'], `no temporary folder is left (${basename(writing)})`);
  assert.deepEqual(metricsWithoutTiming(runDir), metricsWithoutTiming(whole), 'metrics.jsonl equals the uninterrupted run (timing fields aside)');
  assert.deepEqual(weights(runDir), weights(whole), 'the final weights equal the uninterrupted run');
});

/** Every name under `dir` (recursively) of a temporary file or folder. */
function temporaries(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => [...(name.includes('.tmp-') ? [name] : []), ...(statSync(join(dir, name)).isDirectory() ? temporaries(join(dir, name)) : [])]);
}

test('SIGKILL while the base model or a rollouts file is being written: --resume removes the temporary copy and ends as an uninterrupted run', async () => {
  const whole = join(dir, 'whole');
  for (const [what, point, temporary] of [
    ['base', 'atomic-write:/.base.tmp-', /^\.base\.tmp-\d+-\d+$/],
    ['rollouts', 'atomic-write:rollouts/.step-000001', /^rollouts\/\.step-000001\.jsonl\.tmp-\d+-\d+$/],
  ] as const) {
    const runDir = join(dir, `killed-${what}`);
    const child = spawnAtFailpoint(['train', config, '--run-dir', runDir], point);
    const writing = relative(runDir, await child.reached);
    assert.equal((await child.kill()).signal, 'SIGKILL');
    assert.match(writing, temporary);
    assert.ok(existsSync(join(runDir, writing)), `${what}: the temporary copy is there before the resume`);

    const resumed = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir, '--resume'], { encoding: 'utf8' });
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`removed 1 temporary file\\(s\\) an interrupted write left \\(${writing.replace(/[.]/g, '\\.')}\\)`));
    assert.deepEqual(temporaries(runDir), [], `${what}: nothing temporary is left`);
    assert.deepEqual(metricsWithoutTiming(runDir), metricsWithoutTiming(whole), `${what}: metrics.jsonl equals the uninterrupted run`);
    assert.deepEqual(weights(runDir), weights(whole), `${what}: the final weights equal the uninterrupted run`);
  }
});
