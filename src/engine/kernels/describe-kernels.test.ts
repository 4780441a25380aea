// The run log names the backend, and says why when `auto` could not use the native addon.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeKernels } from './get-kernels.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';
import { createWasmKernels } from './wasm-kernels.js';
import { nativeSkip } from './native-skip.test-helper.js';

test('describeKernels: a WASM fallback under auto gives the reason; an explicit wasm does not', async () => {
  const wasm = await createWasmKernels({ threads: 1 });
  const fallback = describeKernels(wasm, 'auto', { TROUPE_NO_NATIVE: '1' });
  assert.match(fallback, /^engine: WebAssembly backend \(\w+, 1 thread; native addon unavailable: TROUPE_NO_NATIVE=1 is set\)$/);
  assert.doesNotMatch(describeKernels(wasm, 'wasm', { TROUPE_NO_NATIVE: '1' }), /unavailable/);
  assert.doesNotMatch(describeKernels(wasm, 'auto', { TROUPE_NO_NATIVE: '1', TROUPE_BACKEND: 'wasm' }), /unavailable/);
});

test('describeKernels: the native backend names its instruction set and threads', { skip: nativeSkip }, () => {
  const isa = loadNativeBinding().binding!.isas[0]!;
  assert.equal(describeKernels(createNativeKernels({ threads: 2, isa })), `engine: native backend (${isa}, 2 threads)`);
});
