import { runKernelConformance } from './conformance.js';
import { detectSimdFlavor } from './feature-detect.js';
import { createWasmKernels } from './wasm-kernels.js';

// parallelThreshold 1 sends every matmul the two-thread path, so small cases test the split.
for (const simd of ['relaxed', 'plain'] as const) {
  if (simd === 'relaxed' && detectSimdFlavor() !== 'relaxed') continue;
  runKernelConformance(`wasm-${simd}, 1 thread`, () => createWasmKernels({ threads: 1, simd }));
  runKernelConformance(`wasm-${simd}, 2 threads`, () => createWasmKernels({ threads: 2, simd, parallelThreshold: 1, matvecSplitFrom: 0 }));
}
