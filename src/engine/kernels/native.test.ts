import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runKernelConformance } from './conformance.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';
import { nativeSkip } from './native-skip.test-helper.js';

// Where the addon is missing (TROUPE_NO_NATIVE=1, no compiler, a CPU it does not build for) the
// conformance runs are skipped with the reason, which the summary line of `npm test` repeats,
// and asking for the backend is a clear error.
const load = loadNativeBinding();
if (!load.binding) {
  test('without the native addon, asking for the native backend is an error naming why', () => {
    assert.throws(() => createNativeKernels(), /native backend is not available/);
  });
  test('native kernel conformance', { skip: nativeSkip }, () => undefined);
} else {
  // Every instruction set this CPU runs, on one thread and with every product split.
  for (const isa of load.binding.isas) {
    runKernelConformance(`native-${isa}, 1 thread`, () => createNativeKernels({ threads: 1, isa }));
    runKernelConformance(`native-${isa}, 2 threads`, () => createNativeKernels({ threads: 2, isa, parallelFrom: 0 }));
  }
}

