// A full disk while appending to metrics.jsonl: the write that does not fit fails with an io
// error, and the file keeps only whole records (a short write is cut back off), so a resume
// reads it without a skipped line. The disk is a small tmpfs (util/small-disk.test-helper.ts;
// skipped with a message where the machine cannot make one).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { privateMountArgs, smallDiskUnavailable } from '../../util/small-disk.test-helper.js';
import { testDir } from '../../util/test-dir.test-helper.js';

const writer = join(dirname(fileURLToPath(import.meta.url)), 'metrics-writer.js');

test('records appended until the disk is full: an io error, and the file ends with a whole record', { skip: smallDiskUnavailable() }, () => {
  const mnt = join(testDir('troupe-metrics-full-'), 'mnt');
  // Records of ~170 bytes on a 16 KiB disk: one of them straddles the last free page, so the
  // write that fails has part of its bytes already taken unless they are cut back off.
  const script = `
    const { MetricsWriter } = await import(${JSON.stringify(writer)});
    const { readFileSync } = await import('node:fs');
    const path = ${JSON.stringify(join(mnt, 'metrics.jsonl'))};
    const w = new MetricsWriter(path);
    let step = 0, error = '';
    try {
      for (; step < 100000; step++) w.write({ kind: 'warm-start', step, loss: 1 / (step + 1), tokens: 123456, lr: 0.000123456789, elapsed_s: step * 1.234567891 });
    } catch (e) { error = e.message; }
    console.log(JSON.stringify({ step, error, text: readFileSync(path, 'utf8') }));`;
  const sh = `mkdir -p ${mnt} && mount -t tmpfs -o size=16k tmpfs ${mnt} && "${process.execPath}" --input-type=module -e "$0"`;
  const run = spawnSync('unshare', [...privateMountArgs, 'sh', '-c', sh, script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const { step, error, text } = JSON.parse(run.stdout) as { step: number; error: string; text: string };
  assert.match(error, /could not append to .*metrics\.jsonl: .*ENOSPC.*the disk is not full/);
  assert.ok(text.endsWith('\n'), `the file ends mid-record: ...${JSON.stringify(text.slice(-60))}`);
  const lines = text.trimEnd().split('\n');
  assert.equal(lines.length, step, 'every record before the failing one is kept, whole');
  lines.forEach((line, i) => assert.equal(JSON.parse(line).step, i));
});
