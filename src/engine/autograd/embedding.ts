import { TroupeError } from '../../util/errors.js';
import type { Tensor } from '../tensor.js';
import { gatherWeightRows } from '../weight-ops.js';
import { asMatrix } from './check.js';
import type { Tape } from './tape.js';

/**
 * Row gather: out[i] = weight[ids[i]] for weight (V, d) -> out (N, d). Backward scatter-adds
 * each output row's gradient into the row it came from (repeated ids accumulate). The weight
 * may be a frozen bf16 table (rows are widened to float32).
 */
export function embedding(tape: Tape, weight: Tensor, ids: ArrayLike<number>): Tensor {
  const [vocab, d] = asMatrix('embedding', 'weight', weight);
  return gatherRowsImpl(tape, 'embedding', weight, ids, vocab, d, [ids.length, d]);
}

/** out[i] = x[rows[i]] for x (N, d): picks the positions whose logits are needed. */
export function gatherRows(tape: Tape, x: Tensor, rows: ArrayLike<number>): Tensor {
  const [n, d] = asMatrix('gatherRows', 'x', x);
  return gatherRowsImpl(tape, 'gatherRows', x, rows, n, d, [rows.length, d]);
}

function gatherRowsImpl(tape: Tape, op: string, x: Tensor, rows: ArrayLike<number>, n: number, d: number, shape: number[]): Tensor {
  const index = Int32Array.from(rows as ArrayLike<number>);
  for (const r of index) {
    if (r < 0 || r >= n) throw new TroupeError('engine', `${op}: index ${r} is outside 0..${n - 1}; ids must be below the table size ${n}`);
  }
  const out = tape.output(shape, [x]);
  gatherWeightRows(x, index, out.data); // x may be a frozen bf16 embedding table
  tape.onBackward(out, () => {
    const dx = tape.gradOf(x);
    const g = out.grad!;
    for (let i = 0; i < index.length; i++) {
      const src = i * d;
      const dst = index[i]! * d;
      for (let j = 0; j < d; j++) dx[dst + j] = dx[dst + j]! + g[src + j]!;
    }
  });
  return out;
}

/** Stacks matrices with equal column counts on top of each other. */
export function concatRows(tape: Tape, parts: readonly Tensor[]): Tensor {
  if (parts.length === 0) throw new TroupeError('engine', 'concatRows needs at least one tensor');
  const d = asMatrix('concatRows', 'parts[0]', parts[0]!)[1];
  let rows = 0;
  for (const [i, p] of parts.entries()) {
    const [r, c] = asMatrix('concatRows', `parts[${i}]`, p);
    if (c !== d) throw new TroupeError('engine', `concatRows: parts[${i}] has ${c} columns but parts[0] has ${d}; all parts need equal widths`);
    rows += r;
  }
  const out = tape.output([rows, d], parts);
  let offset = 0;
  for (const p of parts) {
    out.data.set(p.data, offset);
    offset += p.size;
  }
  tape.onBackward(out, () => {
    let at = 0;
    for (const p of parts) {
      if (p.requiresGrad) tape.kernels.axpy(1, out.grad!.subarray(at, at + p.size), tape.gradOf(p));
      at += p.size;
    }
  });
  return out;
}
