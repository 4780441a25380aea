import { after, before, describe } from 'node:test';
import { matmulConformance } from './conformance-matmul.js';
import { matmulBf16Conformance } from './conformance-matmul-bf16.js';
import { opsConformance } from './conformance-ops.js';
import type { Kernels } from './types.js';

/**
 * The one test suite every Kernels implementation runs (see reference.test.ts and
 * wasm.test.ts): hand-computed cases, random cases against the reference kernels, finite
 * differences for backward ops, odd sizes that are not multiples of the SIMD width or
 * tiles, unaligned subarray views, arrays inside and outside kernel memory.
 * Kernels with a `dispose()` method are disposed after the suite.
 */
export function runKernelConformance(name: string, makeKernels: () => Kernels | Promise<Kernels>): void {
  describe(`kernel conformance: ${name}`, () => {
    let kernels: Kernels | undefined;
    const get = (): Kernels => {
      if (!kernels) throw new Error(`kernels '${name}' were not created`);
      return kernels;
    };
    before(async () => {
      kernels = await makeKernels();
    });
    after(async () => {
      const disposable = kernels as (Kernels & { dispose?: () => Promise<void> }) | undefined;
      await disposable?.dispose?.();
    });
    matmulConformance(get);
    matmulBf16Conformance(get);
    opsConformance(get);
  });
}
