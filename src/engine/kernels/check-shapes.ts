import { TroupeError } from '../../util/errors.js';
import type { MatmulArgs, MatmulBf16Args } from './types.js';

/**
 * Shape checks shared by every Kernels implementation, so a wrong call fails the same way
 * (a TroupeError 'engine' naming the array and sizes) instead of reading past a view.
 */
export function checkLength(op: string, name: string, array: ArrayLike<number>, needed: number): void {
  if (array.length < needed) {
    throw new TroupeError(
      'engine',
      `${op}: '${name}' has ${array.length} elements but the shape needs at least ${needed}; pass a larger array or fix the shape arguments`,
    );
  }
}

// These run on every kernel call (about a hundred per decoded token), so the common path
// allocates nothing: for...in over the literal, no Object.entries arrays.
export function checkDims(op: string, dims: Record<string, number>): void {
  for (const name in dims) {
    const value = dims[name]!;
    if (!Number.isInteger(value) || value < 0) {
      throw new TroupeError('engine', `${op}: '${name}' must be a non-negative integer, got ${value}`);
    }
  }
}

const isDim = (value: number): boolean => Number.isInteger(value) && value >= 0;

export function checkMatmul(args: MatmulArgs | MatmulBf16Args, op = 'matmul'): void {
  const { m, n, k } = args;
  if (!isDim(m) || !isDim(n) || !isDim(k)) checkDims(op, { m, n, k });
  checkLength(op, 'a', args.a, m * k);
  checkLength(op, 'b', args.b, k * n);
  checkLength(op, 'c', args.c, m * n);
}

/** The arguments of Kernels.rmsNorm (see types.ts). */
export function checkRmsNorm(x: Float32Array, weight: Float32Array, out: Float32Array, invRms: Float32Array, rows: number, d: number): void {
  checkDims('rmsNorm', { rows, d });
  checkLength('rmsNorm', 'x', x, rows * d);
  checkLength('rmsNorm', 'out', out, rows * d);
  checkLength('rmsNorm', 'weight', weight, d);
  checkLength('rmsNorm', 'invRms', invRms, rows);
}

/** The arguments of Kernels.rmsNormBackward. */
export function checkRmsNormBackward(x: Float32Array, weight: Float32Array, invRms: Float32Array, dOut: Float32Array, dx: Float32Array, dWeight: Float32Array, rows: number, d: number): void {
  checkDims('rmsNormBackward', { rows, d });
  for (const [name, arr] of Object.entries({ x, dOut, dx })) checkLength('rmsNormBackward', name, arr, rows * d);
  checkLength('rmsNormBackward', 'weight', weight, d);
  checkLength('rmsNormBackward', 'dWeight', dWeight, d);
  checkLength('rmsNormBackward', 'invRms', invRms, rows);
}

/** The arguments of Kernels.rope: x is [tokens, heads, headDim], invFreq has headDim/2 entries. */
export function checkRope(x: Float32Array, positions: Int32Array, invFreq: Float32Array, tokens: number, heads: number, headDim: number): void {
  checkDims('rope', { tokens, heads, headDim });
  checkLength('rope', 'x', x, tokens * heads * headDim);
  checkLength('rope', 'positions', positions, tokens);
  checkLength('rope', 'invFreq', invFreq, headDim >> 1);
}

/** A rows x cols matrix argument of a row-wise op (softmax, log-softmax). */
export function checkRows(op: string, name: string, array: Float32Array, rows: number, cols: number): void {
  checkDims(op, { rows, cols });
  checkLength(op, name, array, rows * cols);
}

/** logSoftmax's arguments: rows x vocab logits and, when asked for, an entropy per row. */
export function checkLogSoftmax(logits: Float32Array, rows: number, vocab: number, entropy?: Float32Array): void {
  checkRows('logSoftmax', 'logits', logits, rows, vocab);
  if (entropy) checkLength('logSoftmax', 'entropy', entropy, rows);
}

/** logSoftmaxGatherBackward's arguments: rows x vocab log-probs, a target in range and a g per row. */
export function checkGatherBackward(logp: Float32Array, rows: number, vocab: number, targets: Int32Array, g: Float32Array): void {
  const op = 'logSoftmaxGatherBackward';
  checkRows(op, 'logp', logp, rows, vocab);
  checkLength(op, 'targets', targets, rows);
  checkLength(op, 'g', g, rows);
  for (let i = 0; i < rows; i++) {
    const t = targets[i]!;
    if (!(t >= 0 && t < vocab)) throw new TroupeError('engine', `${op}: target ${t} of row ${i} is outside the vocabulary 0..${vocab - 1}`);
  }
}

export function checkSameLength(op: string, arrays: Record<string, ArrayLike<number>>): number {
  let length = -1;
  for (const name in arrays) {
    const array = arrays[name]!;
    if (length < 0) length = array.length;
    else if (array.length !== length) {
      const sizes = Object.entries(arrays).map(([n, a]) => `${n}=${a.length}`).join(', ');
      throw new TroupeError('engine', `${op}: arrays must have equal lengths (${sizes}); '${name}' differs. Pass views of the same length`);
    }
  }
  return length;
}
