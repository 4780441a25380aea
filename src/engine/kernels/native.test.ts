import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runKernelConformance } from './conformance.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';

// The native backend must be built for `npm test` to pass, unless TROUPE_NO_NATIVE=1 says
// the install skipped it on purpose: a missing addon is never a silent skip.
const load = loadNativeBinding();
if (!load.binding) {
  test('native addon: not loaded only when TROUPE_NO_NATIVE=1', () => {
    assert.equal(process.env.TROUPE_NO_NATIVE, '1', `the native addon did not load: ${load.reason}`);
    assert.throws(() => createNativeKernels(), /native backend is not available/);
  });
} else {
  // Every instruction set this CPU runs, on one thread and with every product split.
  for (const isa of load.binding.isas) {
    runKernelConformance(`native-${isa}, 1 thread`, () => createNativeKernels({ threads: 1, isa }));
    runKernelConformance(`native-${isa}, 2 threads`, () => createNativeKernels({ threads: 2, isa, parallelFrom: 0 }));
  }
}

if (load.binding) {
  const binding = load.binding;
  test('native free gives memory back at once, not at the next garbage collection', () => {
    const before = binding.liveBytes();
    const arrays = Array.from({ length: 4 }, () => binding.alloc(1 << 20));
    assert.equal(binding.liveBytes() - before, 4 * 4 * (1 << 20));
    for (const a of arrays) binding.free(a);
    assert.equal(binding.liveBytes(), before, 'every freed block is released while its arrays are still referenced');
    assert.equal(arrays[0]!.length, 0, 'a freed array is detached, so it can no longer reach the memory');
    binding.free(arrays[0]!); // a second free of the same array is harmless
    assert.equal(binding.liveBytes(), before);
    // Many short-lived blocks (a training step's temporaries) never pile up.
    for (let i = 0; i < 200; i++) binding.free(binding.alloc(1 << 18));
    assert.equal(binding.liveBytes(), before);
  });
}
