import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Tape } from '../autograd/tape.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { LINEAR_MODULES } from '../model/llama-params.js';
import { AdamW } from '../optim/adamw.js';
import { loadNativeBinding, type NativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';

// How the native backend's memory behaves over many training steps. Without the addon
// native.test.ts already fails (or TROUPE_NO_NATIVE=1 says it was skipped on purpose).
const binding = loadNativeBinding().binding;
const MB = 2 ** 20;

/**
 * The allocation pattern of one LoRA training step on one 256-token row, for 14 layers: per
 * layer a few small blocks (norm statistics, LoRA intermediates), eight 127 KB blocks
 * (per-head attention slices) and one ~1 MB block (the hidden states), all written and kept
 * through the forward pass; a gradient of each taken and dropped on the way back; everything
 * freed at the end (tape.dispose).
 */
function trainingStepPattern(native: NativeBinding): void {
  const small = [16, 1024, 2032, 3072, 4064, 8160];
  const kept: Float32Array[] = [];
  for (let layer = 0; layer < 14; layer++) {
    for (const length of small) kept.push(native.alloc(length));
    for (let head = 0; head < 8; head++) kept.push(native.alloc(32512));
    kept.push(native.alloc(260096));
  }
  for (const a of kept) a.fill(1);
  for (let i = kept.length - 1; i >= 0; i--) {
    const grad = native.alloc(kept[i]!.length);
    grad.fill(2);
    native.free(grad);
    if (i % 3 === 0) native.free(kept[i]!);
  }
  for (const a of kept) native.free(a);
}

if (binding) {
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

  test('freed native blocks go back to the system: repeated training steps do not grow the process', () => {
    // With blocks under 1 MB from glibc (whose mmap threshold rises to the largest block freed)
    // or from aligned_alloc (whose split-off pieces fragment the heap), the process grew by
    // ~30 MB a step here while the live bytes returned to zero (~300 MB over these 10 steps;
    // ~220 MB per row of the real 0.6B LoRA benchmark). Own pages from 64 KB up keep it flat.
    for (let step = 0; step < 2; step++) trainingStepPattern(native);
    const live = native.liveBytes();
    const before = process.memoryUsage.rss();
    for (let step = 0; step < 10; step++) trainingStepPattern(native);
    const grown = (process.memoryUsage.rss() - before) / MB;
    assert.equal(native.liveBytes(), live, 'every block was freed');
    assert.ok(grown < 64, `resident memory grew by ${grown.toFixed(0)} MB over 10 steps that each freed all they took`);
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

  test('the cache of freed blocks stays under its limit, and the process with it', () => {
    const limit = 16 * MB;
    const previous = native.setPageCacheLimit(limit);
    try {
      assert.ok(native.cachedBytes() <= limit, 'lowering the limit unmaps the oldest cached blocks at once');
      const before = process.memoryUsage.rss();
      // 40 blocks of distinct sizes (4-8 MB): none can serve another, so each one freed
      // pushes older ones out of the cache.
      for (let i = 0; i < 40; i++) {
        const a = native.alloc(MB + i * 26_000);
        a.fill(1);
        native.free(a);
        assert.ok(native.cachedBytes() <= limit, `after block ${i}: ${native.cachedBytes()} cached bytes over the ${limit} limit`);
      }
      const grown = (process.memoryUsage.rss() - before) / MB;
      assert.ok(grown < 32, `resident memory grew by ${grown.toFixed(0)} MB with a 16 MB cache over 240 MB of blocks`);
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
