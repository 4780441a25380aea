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

