import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';
import { nativeSkip } from './native-skip.test-helper.js';

// A 1-3 row product c = a b (decoding, attention's P V) computes the columns left over after
// groups of 4 vectors a vector of columns at a time (native/src/isa.cc rows_b_lanes); each of
// them must keep the bits the one-column loop gives it (a one-column product runs that loop).
// The groups themselves sum differently and are not compared.
const load = loadNativeBinding();
const VECTOR_FLOATS: Record<string, number> = { baseline: 4, avx2: 8, avx512: 16, 'avx512-bf16': 16 };
test('native 1-3 row products: every column has the bits of the one-column loop', { skip: load.binding ? false : nativeSkip }, () => {
  const rng = new Rng(11);
  for (const isa of load.binding!.isas) {
    const kernels = createNativeKernels({ threads: 1, isa });
    for (const m of [1, 2, 3]) {
      for (const k of [1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 150, 152]) {
        for (const n of [1, 8, 16, 24, 40, 72]) {
          for (const accumulate of [false, true]) {
            const a = Float32Array.from({ length: m * k }, () => rng.nextU32() / 2 ** 32 - 0.5);
            const b = Float32Array.from({ length: k * n }, () => rng.nextU32() / 2 ** 32 - 0.5);
            const start = Float32Array.from({ length: m * n }, () => rng.nextU32() / 2 ** 32);
            const c = Float32Array.from(start);
            kernels.matmul({ a, b, c, m, n, k, accumulate });
            const vw = VECTOR_FLOATS[isa] ?? 4;
            for (let j = Math.floor(n / (4 * vw)) * 4 * vw; j < n; j++) {
              const column = Float32Array.from({ length: k }, (_, p) => b[p * n + j]!);
              const one = Float32Array.from({ length: m }, (_, i) => start[i * n + j]!);
              kernels.matmul({ a, b: column, c: one, m, n: 1, k, accumulate });
              for (let i = 0; i < m; i++) {
                assert.ok(Object.is(c[i * n + j], one[i]), `${isa} m=${m} k=${k} n=${n} accumulate=${accumulate}: c[${i}][${j}] = ${c[i * n + j]}, the one-column loop ${one[i]}`);
              }
            }
          }
        }
      }
    }
  }
});
