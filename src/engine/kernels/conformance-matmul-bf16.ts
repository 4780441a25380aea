import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bf16ToF32, f32ToBf16, roundToBf16 } from '../io/half-float.js';
import { assertClose, newRng, PLACEMENTS, type Placement, randomArray } from './conformance-helpers.js';
import { createReferenceKernels } from './reference.js';
import type { Kernels, MatmulBf16Args } from './types.js';

const reference = createReferenceKernels();

/** Random bf16 bits (values in [-1, 1) rounded to bf16). */
function randomBf16(rng: ReturnType<typeof newRng>, length: number): Uint16Array {
  const bits = new Uint16Array(length);
  f32ToBf16(randomArray(rng, length), bits);
  return bits;
}

/** bf16 bits placed like Placer places floats: plain, in kernel memory, or at an odd offset. */
class Bf16Placer {
  private readonly owned: Float32Array[] = [];
  constructor(private readonly kernels: Kernels) {}

  place(bits: Uint16Array, placement: Placement): Uint16Array {
    const offset = placement.endsWith('offset') ? 1 + (bits.length % 3) : 0;
    const length = bits.length + offset + 2;
    let storage: Uint16Array;
    if (placement.startsWith('alloc')) {
      const backing = this.kernels.alloc(Math.ceil(length / 2));
      this.owned.push(backing);
      storage = new Uint16Array(backing.buffer, backing.byteOffset, length);
    } else {
      storage = new Uint16Array(length);
    }
    storage.fill(0x7fc0); // NaN around the view: reading outside it shows up
    const view = storage.subarray(offset, offset + bits.length);
    view.set(bits);
    return view;
  }

  freeAll(): void {
    for (const array of this.owned.splice(0)) this.kernels.free(array);
  }
}

/** The float32 matmul of the widened weight (the definition) and the rounding scale. */
function expectBf16(args: MatmulBf16Args): { expected: Float32Array; bound: Float32Array } {
  const { m, n, k } = args;
  const b = new Float32Array(k * n);
  bf16ToF32(args.b.subarray(0, k * n), b);
  const expected = Float32Array.from(args.c.subarray(0, m * n));
  reference.matmul({ ...args, b, c: expected });
  const bound = new Float32Array(m * n);
  reference.matmul({ ...args, a: args.a.map(Math.abs), b: b.map(Math.abs), c: bound, accumulate: false });
  if (args.accumulate) for (let i = 0; i < bound.length; i++) bound[i] = bound[i]! + Math.abs(args.c[i]!);
  return { expected, bound };
}

export function matmulBf16Conformance(kernels: () => Kernels): void {
  test('matmulBf16: hand-computed 2x3 by 3x2, b transposed or not, with accumulate', () => {
    const k = kernels();
    const a = new Float32Array([1, 2, 3, 4, 5, 6]);
    // B = [[7, 8], [9, 10], [11, 12]] as bf16 (all exact); 0x40e0 = 7.0
    const toBits = (values: number[]) => { const bits = new Uint16Array(values.length); f32ToBf16(Float32Array.from(values), bits); return bits; };
    const cases = [
      { b: toBits([7, 8, 9, 10, 11, 12]), transB: false },
      { b: toBits([7, 9, 11, 8, 10, 12]), transB: true },
    ];
    assert.equal(toBits([7])[0], 0x40e0);
    for (const { b, transB } of cases) {
      const c = new Float32Array(4);
      k.matmulBf16({ a, b, c, m: 2, n: 2, k: 3, transB });
      assert.deepEqual([...c], [58, 64, 139, 154], `transB=${transB}`);
      c.fill(1);
      k.matmulBf16({ a, b, c, m: 2, n: 2, k: 3, transB, accumulate: true });
      assert.deepEqual([...c], [59, 65, 140, 155], `accumulate transB=${transB}`);
    }
  });

  test('matmulBf16 roundA: the activations are rounded to bf16 (nearest even, subnormals to zero) first', () => {
    const k = kernels();
    // 1 + 2^-10 is 1 in bf16 (7 fraction bits); 1 + 3 * 2^-8 ties up to 1 + 2^-6 (even);
    // 1e-39 is subnormal: zero. b = [1, 1, 2^100] (0x7180 = 2^100).
    const a = new Float32Array([1 + 2 ** -10, 0, 0, 0, 1 + 3 * 2 ** -8, 0, 0, 0, 1e-39]);
    const b = new Uint16Array([0x3f80, 0x3f80, 0x7180]);
    for (const transB of [false, true]) {
      for (const m of [1, 3, 9]) {
        // m rows of the 3 x 3 pattern cycled: row i holds a[(i % 3) * 3 ..].
        const rows = new Float32Array(m * 3).map((_, i) => a[((Math.floor(i / 3) % 3) * 3) + (i % 3)]!);
        const c = new Float32Array(m);
        k.matmulBf16({ a: rows, b, c, m, n: 1, k: 3, transB, roundA: true });
        const want = [1, 1 + 2 ** -6, 0];
        assert.deepEqual([...c], Array.from({ length: m }, (_, i) => want[i % 3]), `rounded, m=${m} transB=${transB}`);
        k.matmulBf16({ a: rows, b, c, m, n: 1, k: 3, transB });
        assert.equal(c[0], Math.fround(1 + 2 ** -10), `not rounded without roundA, m=${m} transB=${transB}`);
      }
    }
  });

  test('matmulBf16: random shapes (1-3 rows, odd, past the cache blocks), placements, roundA, vs the widened float32 matmul', () => {
    const k = kernels();
    const placer = new Bf16Placer(k);
    const rng = newRng('matmul-bf16');
    let variant = 0;
    for (const m of [1, 2, 3, 5, 17, 70]) {
      for (const [n, kk] of [[1, 1], [3, 5], [17, 33], [65, 20], [9, 300], [530, 40], [100, 301], [64, 600], [1100, 70]] as const) {
        const transB = (variant & 1) === 1;
        const accumulate = (variant & 2) === 2;
        const roundA = (variant % 3) !== 0;
        const placement = PLACEMENTS[variant % PLACEMENTS.length]!;
        variant++;
        const args = {
          a: randomArray(rng, m * kk),
          b: placer.place(randomBf16(rng, kk * n), placement),
          c: randomArray(rng, m * n),
          m, n, k: kk, transB, accumulate, roundA,
        };
        const rounded = args.a.slice();
        if (roundA) roundToBf16(rounded, rounded);
        const { expected, bound } = expectBf16({ ...args, a: rounded });
        k.matmulBf16(args);
        assertClose(args.c, expected, { rtol: 1e-5, atol: 1e-6, bound }, `m=${m} n=${n} k=${kk} tB=${transB} acc=${accumulate} roundA=${roundA} ${placement}`);
      }
    }
    placer.freeAll();
  });

  test('matmulBf16: deterministic, and a too-short b is an engine error naming it', () => {
    const k = kernels();
    const rng = newRng('matmul-bf16-det');
    const [m, n, kk] = [33, 70, 260];
    const a = k.alloc(m * kk);
    a.set(randomArray(rng, m * kk));
    const b = randomBf16(rng, n * kk);
    const c = k.alloc(m * n);
    k.matmulBf16({ a, b, c, m, n, k: kk, transB: true });
    const first = c.slice();
    k.matmulBf16({ a, b, c, m, n, k: kk, transB: true });
    assert.deepEqual(c, first, 'same inputs give bit-identical outputs');
    k.free(a);
    k.free(c);
    assert.throws(
      () => k.matmulBf16({ a: new Float32Array(6), b: new Uint16Array(5), c: new Float32Array(4), m: 2, n: 2, k: 3 }),
      (error: Error & { category?: string }) => error.category === 'engine' && /matmulBf16: 'b'/.test(error.message),
    );
  });
}
