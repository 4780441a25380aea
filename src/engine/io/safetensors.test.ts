import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { decodeSafetensors, encodeSafetensors, readSafetensors, writeSafetensors } from './safetensors.js';
import type { NamedTensor } from './types.js';

/** Builds a safetensors file by hand: header text + raw little-endian data bytes. */
function handBuilt(header: string, data: number[]): Uint8Array {
  const json = new TextEncoder().encode(header);
  const bytes = new Uint8Array(8 + json.length + data.length);
  bytes[0] = json.length & 0xff;
  bytes[1] = json.length >> 8;
  bytes.set(json, 8);
  bytes.set(data, 8 + json.length);
  return bytes;
}

function assertCheckpointError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof TroupeError, `expected TroupeError, got ${String(error)}`);
    assert.equal(error.category, 'checkpoint');
    assert.match(error.message, pattern);
    return true;
  });
}

test('round trip keeps names, shapes, values and metadata', () => {
  const tensors = new Map<string, NamedTensor>([
    ['z.weight', { shape: [2, 3], data: new Float32Array([1, -2, 3.5, 1e-8, -0, 6e30]) }],
    ['a.bias', { shape: [3], data: new Float32Array([0.1, 0.2, 0.3]) }],
    ['scalar', { shape: [], data: new Float32Array([42]) }],
    ['empty', { shape: [0, 4], data: new Float32Array(0) }],
  ]);
  const decoded = decodeSafetensors(encodeSafetensors(tensors, { format: 'pt' }));
  assert.deepEqual(decoded.metadata, { format: 'pt' });
  assert.deepEqual([...decoded.tensors.keys()].sort(), [...tensors.keys()].sort());
  for (const [name, tensor] of tensors) {
    const got = decoded.tensors.get(name)!;
    assert.deepEqual([...got.shape], [...tensor.shape], name);
    assert.deepEqual(Array.from(got.data), Array.from(tensor.data), name);
  }
});

test('writer lays out the exact format: u64 length, padded sorted header, contiguous data', () => {
  const tensors = new Map<string, NamedTensor>([
    ['b', { shape: [1], data: new Float32Array([2]) }],
    ['a', { shape: [2], data: new Float32Array([1, -1]) }],
  ]);
  const bytes = encodeSafetensors(tensors);
  const view = new DataView(bytes.buffer);
  const headerLength = Number(view.getBigUint64(0, true));
  assert.equal(headerLength % 8, 0);
  const headerText = new TextDecoder().decode(bytes.subarray(8, 8 + headerLength));
  assert.equal(
    headerText.trimEnd(),
    '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}',
  );
  assert.match(headerText, /^[^ ]* *$/); // padding is spaces only, at the end
  assert.equal(bytes.length, 8 + headerLength + 12);
  const data = 8 + headerLength;
  assert.deepEqual([view.getFloat32(data, true), view.getFloat32(data + 4, true), view.getFloat32(data + 8, true)], [1, -1, 2]);
});

test('hand-built file with F32, F16 and BF16 decodes to float32 values', () => {
  const header =
    '{"__metadata__":{"k":"v"},"h":{"dtype":"F16","shape":[4],"data_offsets":[8,16]},' +
    '"f":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[1,2],"data_offsets":[16,20]}}';
  const data = [
    0x00, 0x00, 0x80, 0x3f, /* 1.0f */ 0x00, 0x00, 0x20, 0xc1, /* -10.0f */
    0x00, 0x3c, /* f16 1.0 */ 0x00, 0xb8, /* f16 -0.5 */ 0xff, 0x7b, /* f16 65504 */ 0x01, 0x00, /* f16 2^-24 */
    0x49, 0x40, /* bf16 3.140625 */ 0x80, 0xbf, /* bf16 -1.0 */
  ];
  const { tensors, metadata } = decodeSafetensors(handBuilt(header, data), 'hand.safetensors');
  assert.deepEqual(metadata, { k: 'v' });
  assert.deepEqual(Array.from(tensors.get('f')!.data), [1, -10]);
  assert.deepEqual(Array.from(tensors.get('h')!.data), [1, -0.5, 65504, 2 ** -24]);
  assert.deepEqual(Array.from(tensors.get('b')!.data), [3.140625, -1]);
  assert.deepEqual([...tensors.get('b')!.shape], [1, 2]);
});

test('corrupt and truncated files name the file and the problem', () => {
  const good = encodeSafetensors(new Map([['w', { shape: [4], data: new Float32Array([1, 2, 3, 4]) }]]));
  assertCheckpointError(() => decodeSafetensors(good.subarray(0, 5), 'm.safetensors'), /m\.safetensors.*shorter than the 8-byte/);
  assertCheckpointError(() => decodeSafetensors(good.subarray(0, 20), 'm.safetensors'), /m\.safetensors.*header length \d+ exceeds/);
  assertCheckpointError(() => decodeSafetensors(good.subarray(0, good.length - 3), 'm.safetensors'), /m\.safetensors.*truncated/);
  const extra = new Uint8Array(good.length + 4);
  extra.set(good);
  assertCheckpointError(() => decodeSafetensors(extra, 'm.safetensors'), /4 trailing bytes/);
  assertCheckpointError(() => decodeSafetensors(handBuilt('{"w":', []), 'x.st'), /x\.st.*not UTF-8 JSON/);
  assertCheckpointError(
    () => decodeSafetensors(handBuilt('{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', [0, 0, 0, 0, 0, 0, 0, 0]), 'x.st'),
    /"w".*needs 12 bytes but data_offsets span 8/,
  );
  assertCheckpointError(
    () => decodeSafetensors(handBuilt('{"w":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}', [0, 0, 0, 0, 0, 0, 0, 0]), 'x.st'),
    /dtype I64.*F32, F16, BF16/,
  );
  assertCheckpointError(
    () => decodeSafetensors(handBuilt('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', [0, 0, 0, 0]), 'x.st'),
    /gap or overlap/,
  );
});

test('readSafetensors names a missing file; writeSafetensors leaves no temp files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-st-'));
  try {
    assertCheckpointError(() => readSafetensors(join(dir, 'nope.safetensors')), /nope\.safetensors: file not found/);
    const path = join(dir, 'w.safetensors');
    writeSafetensors(path, new Map([['w', { shape: [1], data: new Float32Array([7]) }]]));
    assert.deepEqual(readdirSync(dir), ['w.safetensors']);
    assert.deepEqual(Array.from(readSafetensors(path).tensors.get('w')!.data), [7]);
    writeFileSync(path, 'garbage!garbage!');
    assertCheckpointError(() => readSafetensors(path), /w\.safetensors is not a valid safetensors file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('encoding rejects data that does not match its shape', () => {
  assert.throws(
    () => encodeSafetensors(new Map([['w', { shape: [2, 2], data: new Float32Array(3) }]])),
    /tensor w has shape \[2, 2\] \(4 values\) but 3 values/,
  );
});
