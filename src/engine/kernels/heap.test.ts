import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { Heap } from './heap.js';

test('random alloc/free never overlaps, stays aligned, and coalesces back to one block', () => {
  const heap = new Heap(1);
  const rng = new Rng(11);
  const live: Array<{ start: number; bytes: number; tag: number }> = [];
  let tag = 1;
  for (let step = 0; step < 2000; step++) {
    if (live.length > 0 && rng.nextU32() % 3 === 0) {
      const [block] = live.splice(rng.nextU32() % live.length, 1);
      const view = new Uint32Array(heap.memory.buffer, block!.start, block!.bytes / 4);
      assert.ok(view.every((v) => v === block!.tag), 'a block kept its contents until freed');
      heap.freeBytes(block!.start);
    } else {
      const bytes = 16 * (1 + (rng.nextU32() % 300));
      const start = heap.allocBytes(bytes);
      assert.equal(start % 16, 0, 'aligned');
      for (const other of live) {
        assert.ok(start + bytes <= other.start || other.start + other.bytes <= start, 'no overlap');
      }
      new Uint32Array(heap.memory.buffer, start, bytes / 4).fill(tag);
      live.push({ start, bytes, tag: tag++ });
    }
  }
  for (const block of live) heap.freeBytes(block.start);
  assert.equal(heap.liveBytes, 0);
  assert.equal(heap.freeBlockCount, 1, 'all free space merged into one block');
});

test('growing the memory keeps earlier views valid and owned', () => {
  const heap = new Heap(1);
  const first = heap.alloc(100);
  first.fill(3);
  const big = heap.alloc(1 << 20); // 4 MiB: forces several pages of growth
  assert.ok(heap.byteLength >= 4 << 20);
  big.fill(1);
  assert.ok(first.every((v) => v === 3), 'old view still reads its values');
  first[5] = 7;
  assert.equal(new Float32Array(heap.memory.buffer, first.byteOffset, 100)[5], 7, 'old view writes reach the memory');
  assert.ok(heap.owns(first) && heap.owns(big) && heap.owns(first.subarray(3)));
  assert.ok(!heap.owns(new Float32Array(4)));
});

test('free rejects foreign arrays, subarrays and double frees', () => {
  const heap = new Heap(1);
  const a = heap.alloc(8);
  const isEngineError = (e: Error & { category?: string }) => e.category === 'engine';
  assert.throws(() => heap.free(new Float32Array(8)), isEngineError);
  assert.throws(() => heap.free(a.subarray(1)), isEngineError);
  heap.free(a);
  assert.throws(() => heap.free(a), isEngineError);
});

test('alloc of freed memory returns zeros', () => {
  const heap = new Heap(1);
  const a = heap.alloc(64);
  a.fill(5);
  heap.free(a);
  const b = heap.alloc(64);
  assert.equal(b.byteOffset, a.byteOffset, 'first fit reuses the block');
  assert.ok(b.every((v) => v === 0));
});

test('two heaps growing in turn still own and free every array they handed out', () => {
  // V8 renews memory.buffer of every shared memory when one of them grows.
  const a = new Heap(1);
  const b = new Heap(1);
  const arrays: Array<[Heap, Float32Array]> = [];
  for (let i = 0; i < 12; i++) {
    arrays.push([a, a.alloc(1 << 16)]);
    arrays.push([b, b.alloc(1 << 16)]);
  }
  for (const [heap, array] of arrays) {
    assert.ok(heap.owns(array));
    assert.ok(!(heap === a ? b : a).owns(array), 'never owned by the other heap');
  }
  for (const [heap, array] of arrays) heap.free(array);
  assert.equal(a.liveBytes + b.liveBytes, 0);
});
