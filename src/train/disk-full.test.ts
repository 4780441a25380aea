// A full disk while a checkpoint is being saved must leave the run folder consistent: the
// newest complete checkpoint intact, no half-written checkpoint under a real name, and a
// message that says what happened. The disk is a small tmpfs (util/small-disk.test-helper.ts;
// skipped with a message where the machine cannot make one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { privateMountArgs, smallDiskUnavailable } from '../util/small-disk.test-helper.js';
import { cliPath as cli, tinyRun } from './tiny-run.test-helper.js';

const { dir, config } = tinyRun({ prefix: 'troupe-full-', map: 'per-role', train: '{ steps: 3, eval_every: 0, eval_tasks: 2, checkpoint_every: 1, keep_checkpoints: 5, samples_every: 0 }' });

function sizeOf(path: string): number {
  const s = statSync(path);
  return s.isDirectory() ? readdirSync(path).reduce((n, f) => n + sizeOf(join(path, f)), 0) : s.size;
}

test('a full disk while saving a checkpoint keeps the previous one and says so', { skip: smallDiskUnavailable() }, () => {
  // Measure one run on the normal disk to size the small one: room for the base, metrics and
  // the first checkpoint, not for the second.
  const sized = join(dir, 'sized');
  const first = spawnSync(process.execPath, [cli, 'train', config, '--set', 'train.steps=1', '--run-dir', sized], { encoding: 'utf8' });
  assert.equal(first.status, 0, first.stderr);
  const checkpoint = sizeOf(join(sized, 'checkpoints', 'step-000000'));
  const rest = sizeOf(sized) - checkpoint;
  const kib = Math.ceil((rest + checkpoint * 1.5) / 1024) + 8;

  const mnt = join(dir, 'mnt');
  const run = join(mnt, 'run');
  const script = `mkdir -p ${mnt} && mount -t tmpfs -o size=${kib}k tmpfs ${mnt} && "${process.execPath}" ${cli} train ${config} --run-dir ${run}; code=$?; ls -a ${run}/checkpoints; exit $code`;
  const full = spawnSync('unshare', [...privateMountArgs, 'sh', '-c', script], { encoding: 'utf8' });
  assert.equal(full.status, 2, `expected the io error exit code 2, got ${full.status}\n${full.stderr}`);
  assert.match(full.stderr, /troupe: io error: could not save the checkpoint of step 1 .*the previous checkpoints are intact/);
  const listed = full.stdout.split('\n').filter((f) => f && f !== '.' && f !== '..');
  assert.deepEqual(listed, ['step-000000'], 'only the complete checkpoint remains, no temporary folder');
  assert.ok(!existsSync(run), 'the tmpfs (and the run on it) is gone with its namespace');
});
