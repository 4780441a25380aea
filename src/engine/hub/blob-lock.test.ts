import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDir } from '../../util/test-dir.test-helper.js';
import { lockBlob } from './blob-lock.js';

const root = testDir('troupe-blob-lock-');

test('a second downloader of the same blob waits until the first releases it', async () => {
  const blob = join(root, 'aaaa');
  const release = await lockBlob(blob, () => assert.fail('the first caller never waits'));
  const waitedFor: number[] = [];
  let second = false;
  const next = lockBlob(blob, (pid) => waitedFor.push(pid)).then((r) => ((second = true), r));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(second, false, 'the lock is held');
  assert.deepEqual(waitedFor, [process.pid], 'told once whom it waits for');
  release();
  const releaseSecond = await next;
  assert.ok(existsSync(`${blob}.lock`));
  releaseSecond();
  assert.ok(!existsSync(`${blob}.lock`));
});

test('a lock left by a process that died is taken over at once', async () => {
  const blob = join(root, 'bbbb');
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  writeFileSync(`${blob}.lock`, String(dead));
  const release = await lockBlob(blob, () => assert.fail(`pid ${dead} has exited; nobody to wait for`));
  release();
});
