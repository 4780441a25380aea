import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kernelPathDiagnostic, parseKernelPathDiagnostic } from './kernel-path-diagnostic.js';
import { kernelPathSummary, kernelPaths } from './kernel-paths.js';
import { loadNativeBinding } from './native-binding.js';
import { nativeSkip } from './native-skip.test-helper.js';

test('kernelPathSummary: names the paths that ran, the runnable ones that did not, and the unavailable ones by why', () => {
  const paths = {
    runnable: ['native-avx2', 'native-baseline', 'wasm-plain'],
    unavailable: [
      { path: 'native-avx512-bf16', why: 'not on this CPU' },
      { path: 'native-avx512', why: 'not on this CPU' },
      { path: 'wasm-relaxed', why: 'no relaxed SIMD in this JavaScript engine' },
    ],
  };
  assert.equal(
    kernelPathSummary(new Set(['wasm-plain', 'native-avx2', 'native-baseline']), paths),
    'kernel paths exercised: native-avx2, native-baseline, wasm-plain; not on this CPU: native-avx512-bf16, native-avx512; no relaxed SIMD in this JavaScript engine: wasm-relaxed',
  );
  assert.equal(
    kernelPathSummary(new Set(['native-avx2']), { runnable: paths.runnable, unavailable: [] }),
    'kernel paths exercised: native-avx2; runnable here but not exercised by this run: native-baseline, wasm-plain',
  );
  assert.equal(kernelPathSummary(new Set(), { runnable: ['wasm-plain'], unavailable: [] }), 'kernel paths exercised: none; runnable here but not exercised by this run: wasm-plain');
});

test('the kernel path diagnostic reads back as the path; other diagnostics are not paths', () => {
  assert.equal(parseKernelPathDiagnostic(kernelPathDiagnostic('native-avx512-bf16')), 'native-avx512-bf16');
  assert.equal(parseKernelPathDiagnostic('tests 12'), undefined);
});

test('kernelPaths: every table the addon was built with is either runnable here or named as not on this CPU', { skip: nativeSkip }, () => {
  const binding = loadNativeBinding().binding!;
  assert.equal(binding.builtIsas.at(-1), 'baseline', 'the baseline table is always built');
  for (const isa of binding.isas) assert.ok(binding.builtIsas.includes(isa), `'${isa}' runs here but is not in builtIsas ${binding.builtIsas.join(', ')}`);
  const { runnable, unavailable } = kernelPaths();
  const native = [...runnable, ...unavailable.map((u) => u.path)].filter((p) => p.startsWith('native-'));
  assert.deepEqual(native.sort(), binding.builtIsas.map((isa) => `native-${isa}`).sort());
  assert.deepEqual(runnable.filter((p) => p.startsWith('native-')), binding.isas.map((isa) => `native-${isa}`));
});
