import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';
import { nativeSkip } from './native-skip.test-helper.js';

// The packed product reads a row-major A where it lies (native/src/isa.cc micro_a) and packs a
// transposed one (pack_a). Both must sum the same products in the same order: the same op(A)
// stored either way gives the same bits, for partial tiles (m, n not multiples of the tile),
// several k blocks (k > 256), several row blocks (m > 120) and both thread counts.
const load = loadNativeBinding();
test('native packed products: a row-major A and the same A stored transposed give the same bits', { skip: load.binding ? false : nativeSkip }, () => {
  const rng = new Rng(5);
  const random = (n: number) => Float32Array.from({ length: n }, () => rng.nextU32() / 2 ** 32 - 0.5);
  for (const isa of load.binding!.isas) {
    for (const threads of [1, 2]) {
      const kernels = createNativeKernels({ threads, isa });
      for (const [m, n, k] of [[6, 17, 1], [25, 40, 16], [17, 64, 64], [130, 192, 64], [31, 33, 300], [250, 70, 192]] as const) {
        for (const transB of [false, true]) {
          for (const accumulate of [false, true]) {
            const a = random(m * k);
            const aT = new Float32Array(k * m);
            for (let i = 0; i < m; i++) for (let p = 0; p < k; p++) aT[p * m + i] = a[i * k + p]!;
            const b = random(k * n);
            const start = random(m * n);
            const direct = Float32Array.from(start);
            const packed = Float32Array.from(start);
            kernels.matmul({ a, b, c: direct, m, n, k, transB, accumulate });
            kernels.matmul({ a: aT, b, c: packed, m, n, k, transA: true, transB, accumulate });
            const at = direct.findIndex((x, i) => !Object.is(x, packed[i]));
            assert.equal(at, -1, `${isa} threads=${threads} m=${m} n=${n} k=${k} transB=${transB} accumulate=${accumulate}: element ${at} is ${direct[at]} row-major, ${packed[at]} transposed`);
            // And both are the product (a misplaced row would still agree with itself).
            const i = m - 1, j = n - 1;
            let want = accumulate ? start[i * n + j]! : 0;
            for (let p = 0; p < k; p++) want += a[i * k + p]! * (transB ? b[j * k + p]! : b[p * n + j]!);
            assert.ok(Math.abs(direct[i * n + j]! - want) < 1e-4, `${isa} m=${m} n=${n} k=${k}: c[${i}][${j}] = ${direct[i * n + j]}, want ${want}`);
          }
        }
      }
    }
  }
});
