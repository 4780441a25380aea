import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { matmulConformance } from './conformance-matmul.js';
import { kernelPathDiagnostic } from './kernel-path-diagnostic.js';
import { matmulBf16Conformance } from './conformance-matmul-bf16.js';
import { opsConformance } from './conformance-ops.js';
import type { Kernels } from './types.js';

/**
 * The one test suite every Kernels implementation runs (see reference.test.ts and
 * wasm.test.ts): hand-computed cases, random cases against the reference kernels, finite
 * differences for backward ops, odd sizes that are not multiples of the SIMD width or
 * tiles, unaligned subarray views, arrays inside and outside kernel memory.
 * Kernels with a `dispose()` method are disposed after the suite.
 * `name` begins with the kernels' own name ('native-avx2, 2 threads'): the suite checks that
 * the kernels it made are that path and reports it to `npm test` (kernel-paths.ts).
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
    // Asking for one instruction set and silently getting another would make the path report a lie.
    test('the kernels are the path this suite names, which npm test reports as exercised', (t) => {
      const path = name.split(', ')[0]!;
      assert.equal(get().name, path, `suite '${name}' made kernels '${get().name}'`);
      t.diagnostic(kernelPathDiagnostic(path));
    });
  });
}
