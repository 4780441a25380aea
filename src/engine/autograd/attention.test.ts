import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { Tensor } from '../tensor.js';
import { attention } from './attention.js';
import { scale } from './elementwise.js';
import { randomLeaf } from './grad-check.js';
import { Tape } from './tape.js';

const kernels = createReferenceKernels();

/** Textbook attention in float64 over one sequence's full key list (rows = keys). */
function naive(q: Float32Array, keys: number[][], values: number[][], opts: { T: number; nh: number; nkv: number; hd: number; lp: number }, qRow0: number): number[][] {
  const { T, nh, nkv, hd, lp } = opts;
  const out: number[][] = [];
  for (let t = 0; t < T; t++) {
    const row: number[] = [];
    for (let h = 0; h < nh; h++) {
      const g = Math.floor(h / (nh / nkv));
      const scores: number[] = [];
      for (let j = 0; j <= lp + t; j++) {
        let s = 0;
        for (let d = 0; d < hd; d++) s += q[(qRow0 + t) * nh * hd + h * hd + d]! * keys[j]![g * hd + d]!;
        scores.push(s / Math.sqrt(hd));
      }
      const max = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - max));
      const z = e.reduce((a, b) => a + b, 0);
      for (let d = 0; d < hd; d++) row.push(e.reduce((acc, p, j) => acc + (p / z) * values[j]![g * hd + d]!, 0));
    }
    out.push(row);
  }
  return out;
}

const rowsOf = (t: Tensor, from: number, count: number): number[][] =>
  Array.from({ length: count }, (_, i) => Array.from(t.data.subarray((from + i) * t.shape[1]!, (from + i + 1) * t.shape[1]!)));

test('attention equals textbook causal GQA attention, with and without a prefix', () => {
  const rng = new Rng(11);
  const [B, T, nh, nkv, hd, Tp] = [2, 3, 4, 2, 3, 4];
  const q = randomLeaf(kernels, [B * T, nh * hd], rng);
  const k = randomLeaf(kernels, [B * T, nkv * hd], rng);
  const v = randomLeaf(kernels, [B * T, nkv * hd], rng);
  const pk = randomLeaf(kernels, [2 * Tp, nkv * hd], rng);
  const pv = randomLeaf(kernels, [2 * Tp, nkv * hd], rng);
  const lengths = [4, 1];
  const index = [1, 0];
  for (const withPrefix of [false, true]) {
    const tape = new Tape(kernels, { grad: false });
    const prefix = withPrefix ? { k: pk, v: pv, seqLen: Tp, lengths, index } : undefined;
    const out = attention(tape, q, k, v, { batch: B, seqLen: T, heads: nh, kvHeads: nkv, headDim: hd, prefix });
    for (let b = 0; b < B; b++) {
      const lp = withPrefix ? lengths[index[b]!]! : 0;
      const keys = [...rowsOf(pk, index[b]! * Tp, lp), ...rowsOf(k, b * T, T)];
      const values = [...rowsOf(pv, index[b]! * Tp, lp), ...rowsOf(v, b * T, T)];
      const expected = naive(q.data, keys, values, { T, nh, nkv, hd, lp }, b * T);
      const got = rowsOf(out, b * T, T);
      expected.forEach((row, t) => row.forEach((x, i) => assert.ok(Math.abs(x - got[t]![i]!) < 1e-5, `b${b} t${t} [${i}] prefix=${withPrefix}: ${got[t]![i]} vs ${x}`)));
    }
    tape.dispose();
  }
});

test('causal row blocks: every block size gives the textbook result, bit-identical forwards', () => {
  const rng = new Rng(5);
  const [B, T, nh, nkv, hd, Tp] = [2, 7, 4, 2, 3, 5];
  const q = randomLeaf(kernels, [B * T, nh * hd], rng);
  const k = randomLeaf(kernels, [B * T, nkv * hd], rng);
  const v = randomLeaf(kernels, [B * T, nkv * hd], rng);
  const pk = randomLeaf(kernels, [2 * Tp, nkv * hd], rng);
  const pv = randomLeaf(kernels, [2 * Tp, nkv * hd], rng);
  const prefix = { k: pk, v: pv, seqLen: Tp, lengths: [5, 2], index: [0, 1] };
  for (const withPrefix of [false, true]) {
    let first: Float32Array | undefined;
    for (const rowBlock of [1, 2, 3, 7, 64]) {
      const tape = new Tape(kernels, { grad: false });
      const out = attention(tape, q, k, v, { batch: B, seqLen: T, heads: nh, kvHeads: nkv, headDim: hd, prefix: withPrefix ? prefix : undefined, rowBlock });
      for (let b = 0; b < B; b++) {
        const lp = withPrefix ? prefix.lengths[b]! : 0;
        const keys = [...rowsOf(pk, b * Tp, lp), ...rowsOf(k, b * T, T)];
        const values = [...rowsOf(pv, b * Tp, lp), ...rowsOf(v, b * T, T)];
        const expected = naive(q.data, keys, values, { T, nh, nkv, hd, lp }, b * T);
        const got = rowsOf(out, b * T, T);
        expected.forEach((row, t) => row.forEach((x, i) => assert.ok(Math.abs(x - got[t]![i]!) < 1e-5, `rowBlock ${rowBlock} b${b} t${t} [${i}]: ${got[t]![i]} vs ${x}`)));
      }
      // Masked scores are exact zeros, so skipping them changes no forward bit.
      if (first) assert.deepEqual(out.data, first, `rowBlock ${rowBlock} prefix=${withPrefix}`);
      else first = Float32Array.from(out.data);
      tape.dispose();
    }
  }
});

test('attention gradients agree across row block sizes, into fresh and accumulated gradients', () => {
  const rng = new Rng(9);
  const [B, T, nh, nkv, hd] = [2, 9, 2, 1, 4];
  const leaves = [[B * T, nh * hd], [B * T, nkv * hd], [B * T, nkv * hd]].map((s) => randomLeaf(kernels, s, rng));
  const dOut = Float32Array.from({ length: B * T * nh * hd }, () => rng.next() - 0.5);
  const gradsFor = (rowBlock: number, fresh: boolean): Float32Array[] => {
    for (const t of leaves) (t.grad ??= new Float32Array(t.size)).fill(0.25); // leaves accumulate onto what is there
    const tape = new Tape(kernels);
    // fresh: q, k, v are tape intermediates (scale by 1), whose gradients attention writes directly
    const [q, k, v] = fresh ? leaves.map((t) => scale(tape, t, 1)) : leaves;
    const out = attention(tape, q!, k!, v!, { batch: B, seqLen: T, heads: nh, kvHeads: nkv, headDim: hd, rowBlock });
    tape.backward(out, dOut);
    tape.dispose();
    return leaves.map((t) => Float32Array.from(t.grad!));
  };
  const reference = gradsFor(T, false);
  assert.ok(reference[0]!.some((x) => Math.abs(x - 0.25) > 1e-3), 'the gradient is not trivial');
  for (const rowBlock of [1, 4, T]) {
    for (const fresh of [false, true]) {
      gradsFor(rowBlock, fresh).forEach((g, i) => g.forEach((x, j) => {
        assert.ok(Math.abs(x - reference[i]![j]!) < 1e-5, `rowBlock ${rowBlock} fresh=${fresh} input ${i} [${j}]: ${x} vs ${reference[i]![j]}`);
      }));
    }
  }
});

test('attention rejects heads that are not a multiple of kvHeads', () => {
  const rng = new Rng(1);
  const tape = new Tape(kernels);
  const q = randomLeaf(kernels, [2, 6], rng);
  const k = randomLeaf(kernels, [2, 4], rng);
  assert.throws(() => attention(tape, q, k, k, { batch: 1, seqLen: 2, heads: 3, kvHeads: 2, headDim: 2 }), /multiple of kvHeads/);
});
