import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { BufferPool } from '../autograd/buffer-pool.js';
import { Tape } from '../autograd/tape.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { LINEAR_MODULES } from '../model/llama-params.js';
import { AdamW } from '../optim/adamw.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';
import { nativeSkip } from './native-skip.test-helper.js';
import { trainingStepPattern } from './training-step-pattern.js';

// How the native backend's memory behaves over many training steps, by the addon's own counts
// (live and cached bytes). What the process's RSS does with them depends on the C library's
// allocator, so bench/native-memory-rss.ts prints it instead of a test asserting a bound.
// Without the addon every test is skipped with the reason.
const binding = loadNativeBinding().binding;
const MB = 2 ** 20;

if (!binding) {
  test('native memory: own pages, page cache, external-memory accounting', { skip: nativeSkip }, () => undefined);
} else {
  const native = binding;

  test('native free gives memory back at once, not at the next garbage collection', () => {
    const before = native.liveBytes();
    const arrays = Array.from({ length: 4 }, () => native.alloc(1 << 20));
    assert.equal(native.liveBytes() - before, 4 * 4 * (1 << 20));
    for (const a of arrays) native.free(a);
    assert.equal(native.liveBytes(), before, 'every freed block is released while its arrays are still referenced');
    assert.equal(arrays[0]!.length, 0, 'a freed array is detached, so it can no longer reach the memory');
    native.free(arrays[0]!); // a second free of the same array is harmless
    assert.equal(native.liveBytes(), before);
    const empty = native.alloc(0); // e.g. a temporary some op needs no room for
    assert.equal(empty.length, 0);
    native.free(empty);
    assert.equal(native.liveBytes(), before, 'an empty array is given back too');
    // Many short-lived blocks (a training step's temporaries) never pile up.
    for (let i = 0; i < 200; i++) native.free(native.alloc(1 << 18));
    assert.equal(native.liveBytes(), before);
  });

  test('native alloc reports its bytes to V8 as external memory, and free takes them back', () => {
    // V8 schedules collections by heap plus external memory; blocks it does not know about
    // would let arrays dropped without free() pile up far beyond what it thinks it holds.
    const before = process.memoryUsage().external;
    const arrays = [native.alloc(16 * MB), native.alloc(1000), native.alloc(40000)];
    const grown = process.memoryUsage().external - before;
    // Within 1 MB: other external memory of the process may come and go meanwhile.
    assert.ok(Math.abs(grown - 64 * MB) < MB, `external memory grew by ${grown} bytes for 64 MB of blocks`);
    for (const a of arrays) native.free(a);
    const left = process.memoryUsage().external - before;
    assert.ok(Math.abs(left) < MB, `external memory is ${left} bytes above its level before the allocations`);
  });

  test('managed blocks (a pool\'s) stay out of the external-memory count that schedules V8\'s collections', () => {
    // What keeps a big model's first micro-batch from setting off a full collection every 64 MB.
    const counted = () => native.v8ExternalMemory();
    const before = counted();
    const untrackedBefore = native.untrackedBytes();
    const managed = [native.alloc(16 * MB, false, true), native.alloc(1000, true, true), native.alloc(40000, false, true)];
    assert.ok(Math.abs(counted() - before) < MB, `V8's count moved by ${counted() - before} bytes for 64 MB of managed blocks`);
    assert.ok(Math.abs(native.untrackedBytes() - untrackedBefore - 64 * MB) < MB);
    const ordinary = native.alloc(4 * MB); // an ordinary block beside them is counted
    assert.ok(Math.abs(counted() - before - 16 * MB) < MB, `V8's count moved by ${counted() - before} bytes for a 16 MB block`);
    native.free(ordinary);
    for (const a of managed) native.free(a);
    assert.equal(native.untrackedBytes(), untrackedBefore);
    assert.ok(Math.abs(counted() - before) < MB, `V8's count is ${counted() - before} bytes off its level before the allocations`);
  });

  test('managed blocks the collector reclaims (never freed) give their offset back to V8 on the next alloc', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const before = native.v8ExternalMemory();
    const untrackedBefore = native.untrackedBytes();
    (() => {
      for (let i = 0; i < 4; i++) native.alloc(MB, false, true); // dropped at once
    })();
    // Node runs the finalizers on the JavaScript thread after the collection.
    for (let round = 0; round < 20 && native.untrackedBytes() !== untrackedBefore; round++) {
      gc();
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(native.untrackedBytes(), untrackedBefore, 'the dropped blocks were finalized');
    native.free(native.alloc(1));
    assert.ok(Math.abs(native.v8ExternalMemory() - before) < MB, `V8's count is ${native.v8ExternalMemory() - before} bytes off its level before the allocations`);
  });

  test('a BufferPool takes managed blocks from the native kernels and gives them all back on clear', () => {
    const pool = new BufferPool(createNativeKernels({ threads: 1 }));
    const before = native.untrackedBytes();
    const arrays = [pool.take(2 ** 20, false), pool.take(3000, true)];
    assert.ok(native.untrackedBytes() - before >= 4 * MB, 'the pool\'s arrays are left out of V8\'s count');
    for (const a of arrays) pool.give(a);
    pool.clear();
    assert.equal(native.untrackedBytes(), before);
  });

  test('repeated training steps free every block they take', () => {
    // The RSS side of this (flat over steps with own pages from 64 KB up) is allocator-dependent:
    // bench/native-memory-rss.ts prints it.
    for (let step = 0; step < 2; step++) trainingStepPattern(native);
    const live = native.liveBytes();
    for (let step = 0; step < 10; step++) trainingStepPattern(native);
    assert.equal(native.liveBytes(), live, 'every block was freed');
  });

  test('a freed large block is reused for the next alloc of its size, zero-filled unless told not to', () => {
    const length = 3 * MB; // 12 MB: own pages, through the cache (native/src/page-cache.h)
    native.setPageCacheLimit(native.setPageCacheLimit(0)); // empty: no block of the earlier tests may serve
    const cachedBefore = native.cachedBytes();
    const first = native.alloc(length);
    first.fill(7);
    native.free(first);
    assert.equal(native.cachedBytes() - cachedBefore, 4 * length, 'the freed block waits in the cache');
    const second = native.alloc(length);
    assert.equal(native.cachedBytes(), cachedBefore, 'the next alloc of that size took it back');
    assert.ok(second.every((x) => x === 0), 'a reused block is zero-filled like a fresh one');
    second.fill(5);
    native.free(second);
    const third = native.alloc(length, false);
    assert.equal(third.length, length);
    assert.equal(third[0], 5, 'zero: false skips the zero-fill: the block still holds what the last user wrote');
    native.free(third);
  });

  test('the cache of freed blocks stays under its limit', () => {
    const limit = 16 * MB;
    const previous = native.setPageCacheLimit(limit);
    try {
      assert.ok(native.cachedBytes() <= limit, 'lowering the limit unmaps the oldest cached blocks at once');
      // 40 blocks of distinct sizes (4-8 MB): none can serve another, so each one freed
      // pushes older ones out of the cache.
      for (let i = 0; i < 40; i++) {
        const a = native.alloc(MB + i * 26_000);
        a.fill(1);
        native.free(a);
        assert.ok(native.cachedBytes() <= limit, `after block ${i}: ${native.cachedBytes()} cached bytes over the ${limit} limit`);
      }
      native.setPageCacheLimit(0);
      assert.equal(native.cachedBytes(), 0, 'a zero limit empties the cache');
    } finally {
      native.setPageCacheLimit(previous);
    }
  });

  test('a LoRA step on the native backend gives back every block it took', () => {
    // The addon's own count of blocks out, whoever took them (the tape, attention scratch, the
    // head's chunks, the optimizer): a block some op forgets to free shows up here.
    const kernels = createNativeKernels({ threads: 2 });
    const model = LlamaModel.create(kernels, llamaConfig({ hidden: 64, layers: 2, heads: 4, kvHeads: 2, intermediate: 128, vocab: 300 }), { seed: 1 });
    model.freezeBase();
    model.setBaseDtype('bf16');
    model.addAdapter('role', { r: 4, alpha: 8, targetModules: LINEAR_MODULES }, 1);
    const optimizer = new AdamW(kernels, model.trainableParameters('role'));
    const row = Array.from({ length: 96 }, (_, i) => (i * 37) % 300);
    const step = (): void => {
      const tape = new Tape(kernels);
      const { logprobs } = model.tokenLogprobs(tape, [{ promptIds: row.slice(0, 8), responseIds: row.slice(8) }], { adapter: 'role' });
      tape.backward(logprobs, new Float32Array(logprobs.size).fill(-0.01));
      tape.dispose();
      optimizer.step(1e-3);
      optimizer.zeroGrad();
    };
    // The first step also fills the kernels' RoPE cos/sin cache (kept for the next calls).
    step();
    const longLived = native.liveBytes();
    for (let i = 1; i < 4; i++) {
      step();
      assert.equal(native.liveBytes(), longLived, `step ${i}: back to the weights, the adapter, its AdamW state and the RoPE cache`);
    }
    optimizer.dispose();
    model.dispose();
  });
}
