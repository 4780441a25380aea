import { TroupeError } from '../../util/errors.js';
import type { Tensor } from '../tensor.js';

/** Reads a tensor as a matrix: (rows, last dimension). */
export function asMatrix(op: string, name: string, t: Tensor): [rows: number, cols: number] {
  if (t.shape.length === 0) throw new TroupeError('engine', `${op}: '${name}' is a scalar but a matrix is needed`);
  const cols = t.shape[t.shape.length - 1]!;
  return [cols === 0 ? 0 : t.size / cols, cols];
}

export function expectEqual(op: string, what: string, got: number, expected: number): void {
  if (got !== expected) {
    throw new TroupeError('engine', `${op}: ${what} is ${got} but must be ${expected}; check the shapes passed to ${op}`);
  }
}

export function expectSameShape(op: string, a: Tensor, b: Tensor): void {
  if (a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) {
    throw new TroupeError('engine', `${op}: shapes [${a.shape.join(', ')}] and [${b.shape.join(', ')}] differ; ${op} needs equal shapes`);
  }
}
