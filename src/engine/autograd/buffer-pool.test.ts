import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createReferenceKernels } from '../kernels/reference.js';
import type { Kernels } from '../kernels/types.js';
import { BufferPool, sizeClass } from './buffer-pool.js';

function countingKernels(): Kernels & { allocs: number; frees: number } {
  const base = createReferenceKernels();
  const k = { ...base, allocs: 0, frees: 0 };
  k.alloc = (n: number) => {
    k.allocs++;
    return base.alloc(n);
  };
  k.free = () => {
    k.frees++;
  };
  return k;
}

test('BufferPool reuses arrays by length, zero-fills on request, and respects its byte cap', () => {
  const kernels = countingKernels();
  const pool = new BufferPool(kernels, { maxBytes: 40 });
  const a = pool.take(5, false);
  a.fill(7);
  pool.give(a);
  assert.equal(pool.pooledBytes, 20);
  const dirty = pool.take(5, false);
  assert.equal(dirty, a, 'same length reuses the pooled array');
  assert.equal(dirty[0], 7, 'without zero the old values remain');
  pool.give(dirty);
  assert.deepEqual(Array.from(pool.take(5, true)), [0, 0, 0, 0, 0]);
  assert.notEqual(pool.take(6, false), a, 'another length allocates');
  assert.equal(kernels.allocs, 2);
  pool.give(kernels.alloc(8)); // 32 bytes: fits
  pool.give(kernels.alloc(8)); // would exceed 40 bytes: freed instead
  assert.equal(kernels.frees, 1);
  pool.clear();
  assert.equal(kernels.frees, 2);
  assert.equal(pool.pooledBytes, 0);
});

test('BufferPool hands out exact-length views of size-class arrays, so near lengths share an array', () => {
  const kernels = countingKernels();
  const pool = new BufferPool(kernels);
  assert.deepEqual([15, 16, 17, 18, 19, 1000, 1024, 1025].map(sizeClass), [15, 16, 18, 18, 20, 1024, 1024, 1152]);
  const a = pool.take(1000, false);
  assert.equal(a.length, 1000);
  a.fill(3);
  pool.give(a);
  const b = pool.take(1010, true);
  assert.equal(b.length, 1010);
  assert.equal(b.buffer, a.buffer, 'a length of the same class reuses the array');
  assert.ok(b.every((x) => x === 0), 'zero fills the whole view');
  pool.give(b);
  assert.equal(pool.pooledBytes, 1024 * 4, 'the pool counts the whole class array');
  assert.equal(kernels.allocs, 1);
  pool.clear();
  assert.equal(kernels.frees, 1);
});

test('BufferPool.trim gives back the largest arrays first until the cap holds', () => {
  const kernels = countingKernels();
  const pool = new BufferPool(kernels);
  const arrays = [4, 8, 64, 256].map((n) => pool.take(n, false));
  for (const a of arrays) pool.give(a);
  assert.equal(pool.pooledBytes, (4 + 8 + 64 + 256) * 4);
  pool.trim(100 * 4);
  assert.equal(pool.pooledBytes, (4 + 8 + 64) * 4, 'only the 256-float array went back');
  assert.equal(kernels.frees, 1);
  assert.equal(pool.take(64, false), arrays[2], 'what stays is reused');
  pool.trim(0);
  assert.equal(pool.pooledBytes, 0);
  assert.equal(kernels.frees, 3);
  assert.notEqual(pool.take(4, false), arrays[0], 'a trimmed class allocates again');
});
