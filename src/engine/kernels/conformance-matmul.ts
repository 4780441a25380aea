import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertClose, newRng, PLACEMENTS, Placer, randomArray } from './conformance-helpers.js';
import { createReferenceKernels } from './reference.js';
import type { Kernels, MatmulArgs } from './types.js';

const reference = createReferenceKernels();

/** Expected C and, per element, sum |a||b| (the scale of float32 rounding in the sum). */
function expectMatmul(args: MatmulArgs): { expected: Float32Array; bound: Float32Array } {
  const { m, n } = args;
  const expected = Float32Array.from(args.c.subarray(0, m * n));
  reference.matmul({ ...args, c: expected });
  const bound = new Float32Array(m * n);
  const abs = (x: Float32Array) => x.map(Math.abs);
  reference.matmul({ ...args, a: abs(args.a), b: abs(args.b), c: bound, accumulate: false });
  if (args.accumulate) for (let i = 0; i < bound.length; i++) bound[i] = bound[i]! + Math.abs(args.c[i]!);
  return { expected, bound };
}

/** Stores a logical rows x cols matrix row-major, or transposed when `transposed`. */
function store(matrix: number[][], transposed: boolean): Float32Array {
  const rows = matrix.length;
  const cols = matrix[0]!.length;
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) out[transposed ? j * rows + i : i * cols + j] = matrix[i]![j]!;
  }
  return out;
}

export function matmulConformance(kernels: () => Kernels): void {
  test('alloc returns independent zeroed arrays that survive free and reuse', () => {
    const k = kernels();
    const arrays = [1, 3, 17, 1000, 5].map((n) => k.alloc(n));
    arrays.forEach((a, i) => {
      assert.ok(a.every((v) => v === 0), `alloc #${i} is zeroed`);
      a.fill(i + 1);
    });
    arrays.forEach((a, i) => assert.ok(a.every((v) => v === i + 1), `alloc #${i} kept its values`));
    k.free(arrays[1]!);
    k.free(arrays[3]!);
    const again = k.alloc(1000);
    assert.ok(again.every((v) => v === 0), 'reused memory is zeroed');
    again.fill(9);
    for (const i of [0, 2, 4]) assert.ok(arrays[i]!.every((v) => v === i + 1), `alloc #${i} untouched by reuse`);
    for (const a of [arrays[0]!, arrays[2]!, arrays[4]!, again]) k.free(a);
  });

  test('matmul: hand-computed 2x3 by 3x2 in every transpose variant, with accumulate', () => {
    const k = kernels();
    const A = [[1, 2, 3], [4, 5, 6]];
    const B = [[7, 8], [9, 10], [11, 12]];
    const product = [58, 64, 139, 154];
    for (const transA of [false, true]) {
      for (const transB of [false, true]) {
        const c = new Float32Array(4);
        k.matmul({ a: store(A, transA), b: store(B, transB), c, m: 2, n: 2, k: 3, transA, transB });
        assert.deepEqual([...c], product, `transA=${transA} transB=${transB}`);
        c.fill(1);
        k.matmul({ a: store(A, transA), b: store(B, transB), c, m: 2, n: 2, k: 3, transA, transB, accumulate: true });
        assert.deepEqual([...c], product.map((v) => v + 1), `accumulate transA=${transA} transB=${transB}`);
      }
    }
  });

  test('matmul: random odd shapes, all transposes, accumulate and placements vs reference', () => {
    const k = kernels();
    const placer = new Placer(k);
    const rng = newRng('matmul-random');
    const sizes = [1, 3, 17, 33, 65];
    let variant = 0;
    for (const m of sizes) {
      for (const n of sizes) {
        for (const kk of [1, 5, 33, 65]) {
          const transA = (variant & 1) === 1;
          const transB = (variant & 2) === 2;
          const accumulate = (variant & 4) === 4;
          const placement = PLACEMENTS[(variant >> 1) % PLACEMENTS.length]!;
          variant++;
          const args = {
            a: placer.place(randomArray(rng, m * kk), placement),
            b: placer.place(randomArray(rng, kk * n), PLACEMENTS[variant % PLACEMENTS.length]!),
            c: placer.place(randomArray(rng, m * n), placement),
            m, n, k: kk, transA, transB, accumulate,
          };
          const { expected, bound } = expectMatmul(args);
          k.matmul(args);
          assertClose(args.c, expected, { rtol: 1e-5, atol: 1e-6, bound }, `m=${m} n=${n} k=${kk} tA=${transA} tB=${transB} acc=${accumulate} ${placement}`);
        }
      }
    }
    placer.freeAll();
  });

  test('matmul: tall and narrow products and short and wide ones (LoRA ranks: m >> n, n >> m), all transposes and accumulate, vs reference', () => {
    const k = kernels();
    const rng = newRng('matmul-narrow');
    let variant = 0;
    const shapes = [[300, 16, 37], [129, 5, 254], [1030, 16, 3], [260, 31, 300], [16, 300, 37], [4, 129, 254], [13, 1030, 3], [17, 40, 9]] as const;
    for (const [m, n, kk] of shapes) {
      for (let v = 0; v < 8; v++, variant++) {
        const args = {
          a: randomArray(rng, m * kk), b: randomArray(rng, kk * n), c: randomArray(rng, m * n),
          m, n, k: kk, transA: (v & 1) === 1, transB: (v & 2) === 2, accumulate: (v & 4) === 4,
        };
        const { expected, bound } = expectMatmul(args);
        k.matmul(args);
        assertClose(args.c, expected, { rtol: 1e-5, atol: 1e-6, bound }, `m=${m} n=${n} k=${kk} variant ${v}`);
      }
    }
  });

  test('matmul: shapes past the cache blocks (k > 256, n > 512) are correct and deterministic', () => {
    const k = kernels();
    const rng = newRng('matmul-large');
    for (const [m, n, kk, transA, transB] of [[70, 530, 300, false, true], [129, 40, 513, true, false], [8, 257, 260, true, true]] as const) {
      const a = k.alloc(m * kk);
      const b = k.alloc(kk * n);
      a.set(randomArray(rng, m * kk));
      b.set(randomArray(rng, kk * n));
      const c = k.alloc(m * n);
      const args = { a, b, c, m, n, k: kk, transA, transB };
      const { expected, bound } = expectMatmul(args);
      k.matmul(args);
      assertClose(c, expected, { rtol: 1e-5, atol: 1e-6, bound }, `m=${m} n=${n} k=${kk}`);
      const first = c.slice();
      c.fill(0);
      k.matmul(args);
      assert.deepEqual(c, first, 'same inputs give bit-identical outputs');
      for (const x of [a, b, c]) k.free(x);
    }
  });

  test('matmul: k = 0 gives zeros (or leaves c when accumulating); m = 0 does nothing', () => {
    const k = kernels();
    const c = new Float32Array([1, 2, 3, 4, 5, 6]);
    k.matmul({ a: new Float32Array(0), b: new Float32Array(0), c, m: 2, n: 3, k: 0, accumulate: true });
    assert.deepEqual([...c], [1, 2, 3, 4, 5, 6]);
    k.matmul({ a: new Float32Array(0), b: new Float32Array(0), c, m: 2, n: 3, k: 0 });
    assert.deepEqual([...c], [0, 0, 0, 0, 0, 0]);
    k.matmul({ a: new Float32Array(0), b: new Float32Array(6), c: new Float32Array(0), m: 0, n: 3, k: 2 });
  });

  test('matmul: a too-short array is an engine error naming it', () => {
    const k = kernels();
    assert.throws(
      () => k.matmul({ a: new Float32Array(5), b: new Float32Array(6), c: new Float32Array(4), m: 2, n: 2, k: 3 }),
      (error: Error & { category?: string }) => error.category === 'engine' && /'a'/.test(error.message),
    );
  });
}
