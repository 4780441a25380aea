// The ustar writer round-trips through GNU tar (an independent reader): names, sizes on and
// off the 512-byte block edge, mtimes and bytes come back as written; bad names are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDir } from './test-dir.test-helper.js';
import { ustarChunks, ustarHeader } from './ustar.js';

function bytesOf(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);
}

test('an archive of files of 0, 1, 512 and 513 bytes extracts with GNU tar to the same bytes and mtimes', () => {
  const dir = testDir('troupe-ustar-');
  const mtime = new Date(Date.UTC(2026, 10, 26, 12, 0, 0));
  const files = [
    { name: 'empty.bin', bytes: new Uint8Array(0), mtime },
    { name: 'one.bin', bytes: bytesOf(1, 1), mtime },
    { name: 'block.bin', bytes: bytesOf(512, 2), mtime },
    { name: 'adapter_model.safetensors', bytes: bytesOf(513, 3), mtime },
  ];
  const archive = Buffer.concat([...ustarChunks(files)]);
  assert.equal(archive.length % 512, 0);
  writeFileSync(join(dir, 'a.tar'), archive);
  const listed = spawnSync('tar', ['-tf', join(dir, 'a.tar')], { encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  assert.deepEqual(listed.stdout.trim().split('\n'), files.map((f) => f.name));
  const out = join(dir, 'out');
  mkdirSync(out);
  const extracted = spawnSync('tar', ['-xf', join(dir, 'a.tar'), '-C', out], { encoding: 'utf8' });
  assert.equal(extracted.status, 0, extracted.stderr);
  for (const f of files) {
    assert.deepEqual(new Uint8Array(readFileSync(join(out, f.name))), f.bytes, f.name);
    assert.equal(statSync(join(out, f.name)).mtime.getTime(), mtime.getTime());
  }
});

test('a header checksum is the byte sum with the checksum field as spaces', () => {
  const header = ustarHeader({ name: 'x', bytes: new Uint8Array(3), mtime: new Date(0) });
  const stored = parseInt(Buffer.from(header.subarray(148, 154)).toString('ascii'), 8);
  const copy = Uint8Array.from(header);
  copy.fill(0x20, 148, 156);
  assert.equal(stored, copy.reduce((a, b) => a + b, 0));
});

test('names with a folder, dot names and names over 100 bytes are refused naming the entry', () => {
  const mtime = new Date(0);
  for (const name of ['a/b', '..', '', 'n'.repeat(101)]) {
    assert.throws(() => ustarHeader({ name, bytes: new Uint8Array(0), mtime }), /tar entry name .* must be a plain file name of 1\.\.100 bytes/);
  }
});
