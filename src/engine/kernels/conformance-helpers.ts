import assert from 'node:assert/strict';
import { Rng } from '../../util/rng.js';
import type { Kernels } from './types.js';

/** Where a test array lives: a plain array, kernel memory, or an unaligned view of either. */
export type Placement = 'plain' | 'alloc' | 'alloc-offset' | 'plain-offset';
export const PLACEMENTS: readonly Placement[] = ['plain', 'alloc', 'alloc-offset', 'plain-offset'];

export function randomArray(rng: Rng, length: number, scale = 1): Float32Array {
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = (rng.nextU32() / 2 ** 32 - 0.5) * 2 * scale;
  return out;
}

/**
 * Tracks arrays placed in kernel memory so a test can free them all. Offset placements
 * start 1-3 floats into a larger array, so they are not 16-byte aligned.
 */
export class Placer {
  private readonly owned: Float32Array[] = [];
  constructor(private readonly kernels: Kernels) {}

  place(data: Float32Array, placement: Placement, offset = 1 + (data.length % 3)): Float32Array {
    switch (placement) {
      case 'plain':
        return data.slice();
      case 'plain-offset': {
        const big = new Float32Array(data.length + offset + 2).fill(Number.NaN);
        big.set(data, offset);
        return big.subarray(offset, offset + data.length);
      }
      case 'alloc': {
        const array = this.kernels.alloc(data.length);
        this.owned.push(array);
        array.set(data);
        return array;
      }
      case 'alloc-offset': {
        const big = this.kernels.alloc(data.length + offset + 2);
        this.owned.push(big);
        big.fill(Number.NaN);
        const view = big.subarray(offset, offset + data.length);
        view.set(data);
        return view;
      }
    }
  }

  freeAll(): void {
    for (const array of this.owned.splice(0)) this.kernels.free(array);
  }
}

/** |actual - expected| <= atol + rtol * |expected| elementwise (per-element bound optional). */
export function assertClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tolerance: { rtol?: number; atol?: number; bound?: ArrayLike<number> },
  label: string,
): void {
  assert.equal(actual.length, expected.length, `${label}: length`);
  const { rtol = 1e-5, atol = 1e-6, bound } = tolerance;
  for (let i = 0; i < expected.length; i++) {
    const scale = bound ? bound[i]! : Math.abs(expected[i]!);
    const limit = atol + rtol * scale;
    const error = Math.abs(actual[i]! - expected[i]!);
    if (!(error <= limit)) {
      assert.fail(`${label}: element ${i} is ${actual[i]} but expected ${expected[i]} (error ${error} > ${limit})`);
    }
  }
}

/** Central finite differences of a float64 scalar function at x. */
export function finiteDifference(f: (x: Float64Array) => number, x: ArrayLike<number>, h = 1e-4): Float64Array {
  const point = Float64Array.from(x);
  const grad = new Float64Array(point.length);
  for (let i = 0; i < point.length; i++) {
    const saved = point[i]!;
    point[i] = saved + h;
    const up = f(point);
    point[i] = saved - h;
    const down = f(point);
    point[i] = saved;
    grad[i] = (up - down) / (2 * h);
  }
  return grad;
}

export function newRng(label: string): Rng {
  return Rng.derive(20240601, 'kernel-conformance', label);
}
