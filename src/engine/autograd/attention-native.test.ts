import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { loadNativeBinding } from '../kernels/native-binding.js';
import { createNativeKernels } from '../kernels/native-kernels.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor } from '../tensor.js';
import { attention, type AttentionPrefix } from './attention.js';
import { Tape } from './tape.js';
import { nativeSkip } from '../kernels/native-skip.test-helper.js';

// The native backend's per-sequence attention (attentionForward / attentionBackward: all
// heads in one call, on the thread pool) against attention.ts's own per-head loops on the
// same kernels: the same products and softmax calls, so the same bits, forward and backward.
// Without the addon these tests are skipped with the reason.
const binding = loadNativeBinding().binding;

function leaf(shape: [number, number], rng: Rng): Tensor {
  return new Tensor(shape, Float32Array.from({ length: shape[0] * shape[1] }, () => rng.next() * 2 - 1), true);
}

interface Case {
  B: number; T: number; nh: number; nkv: number; hd: number; rowBlock: number; prefixLengths?: number[];
  /** Prefix of each sequence; default (b + 1) % prefixes, a different one each time. */
  index?: number[];
}

/** Output and every gradient of one attention call on `kernels` (same inputs for the same case);
 *  with `grad: false`, the output of a tape that records nothing. */
function run(kernels: Kernels, c: Case, grad = true): Float32Array[] {
  const rng = new Rng(7);
  const q = leaf([c.B * c.T, c.nh * c.hd], rng);
  const k = leaf([c.B * c.T, c.nkv * c.hd], rng);
  const v = leaf([c.B * c.T, c.nkv * c.hd], rng);
  const tp = Math.max(0, ...(c.prefixLengths ?? []));
  const groups = c.prefixLengths?.length ?? 0;
  const pk = leaf([groups * tp, c.nkv * c.hd], rng);
  const pv = leaf([groups * tp, c.nkv * c.hd], rng);
  const dOut = Float32Array.from({ length: c.B * c.T * c.nh * c.hd }, () => rng.next() - 0.5);
  const prefix: AttentionPrefix | undefined = c.prefixLengths && { k: pk, v: pv, seqLen: tp, lengths: c.prefixLengths, index: c.index ?? Array.from({ length: c.B }, (_, b) => (b + 1) % groups) };
  const tape = new Tape(kernels, { grad });
  const out = attention(tape, q, k, v, { batch: c.B, seqLen: c.T, heads: c.nh, kvHeads: c.nkv, headDim: c.hd, rowBlock: c.rowBlock, prefix });
  const result = [Float32Array.from(out.data)];
  if (!grad) {
    tape.dispose();
    return result;
  }
  tape.backward(out, dOut);
  for (const t of prefix ? [q, k, v, pk, pv] : [q, k, v]) result.push(Float32Array.from(t.grad!));
  tape.dispose();
  return result;
}

const CASES: Case[] = [
  { B: 1, T: 37, nh: 4, nkv: 2, hd: 16, rowBlock: 8 },
  { B: 2, T: 21, nh: 6, nkv: 3, hd: 8, rowBlock: 32 },
  { B: 3, T: 13, nh: 4, nkv: 1, hd: 12, rowBlock: 5, prefixLengths: [4, 9] },
];

/** GRPO-shaped batches: many short answers continuing a few prompts of different lengths. */
const GROUP_CASES: Case[] = [
  { B: 12, T: 1, nh: 4, nkv: 4, hd: 16, rowBlock: 32, prefixLengths: [75, 71, 0] },
  { B: 9, T: 3, nh: 4, nkv: 2, hd: 8, rowBlock: 2, prefixLengths: [5, 11, 8] },
  // Groups of consecutive sequences on one prefix (the batch call copies a prefix once for its
  // run of sequences), one without a prefix between them, a prefix seen again after others,
  // and two prefixes of the same length.
  { B: 11, T: 2, nh: 4, nkv: 2, hd: 16, rowBlock: 32, prefixLengths: [30, 0, 27, 27], index: [0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 0] },
  { B: 6, T: 4, nh: 6, nkv: 3, hd: 8, rowBlock: 3, prefixLengths: [9, 13], index: [1, 1, 1, 0, 0, 1] },
];

/** The native kernels without a pair of their optional calls (attention.ts then loops itself). */
function without(kernels: Kernels, ...names: ('attentionForward' | 'attentionBackward' | 'attentionBatchForward' | 'attentionBatchBackward')[]): Kernels {
  return { ...kernels, ...Object.fromEntries(names.map((n) => [n, undefined])) };
}

const NAMES = ['out', 'dq', 'dk', 'dv', 'd prefix k', 'd prefix v'];

if (!binding) {
  test('native attention: same bits as the per-head loops, forward and backward', { skip: nativeSkip }, () => undefined);
} else {
  for (const isa of binding.isas) {
    for (const threads of [1, 2] as const) {
      test(`native attention of a sequence in one call = the per-head loops, bit for bit (${isa}, ${threads} thread(s))`, () => {
        const fused = createNativeKernels({ threads, isa, parallelFrom: 0 });
        assert.equal(typeof fused.attentionForward, 'function');
        const perSequence = without(fused, 'attentionBatchForward', 'attentionBatchBackward');
        const loops = without(fused, 'attentionForward', 'attentionBackward', 'attentionBatchForward', 'attentionBatchBackward');
        for (const c of CASES) {
          const expected = run(loops, c);
          const got = run(perSequence, c);
          got.forEach((array, i) => assert.deepEqual(array, expected[i], `${NAMES[i]} of ${JSON.stringify(c)}`));
        }
      });

      test(`native attention of a whole batch in one call = one call per sequence, bit for bit (${isa}, ${threads} thread(s))`, () => {
        const batched = createNativeKernels({ threads, isa, parallelFrom: 0 });
        assert.equal(typeof batched.attentionBatchForward, 'function');
        const perSequence = without(batched, 'attentionBatchForward', 'attentionBatchBackward');
        for (const c of [...CASES, ...GROUP_CASES]) {
          const expected = run(perSequence, c);
          const got = run(batched, c);
          got.forEach((array, i) => assert.deepEqual(array, expected[i], `${NAMES[i]} of ${JSON.stringify(c)}`));
          // A tape without a backward (a reference pass) hands the scores back at once: same output.
          assert.deepEqual(run(batched, c, false)[0], expected[0], `out without a backward of ${JSON.stringify(c)}`);
        }
      });
    }
  }

  test('native attention checks its dims: a wrong head split is an error, not a read past the arrays', () => {
    const ops = binding.create(binding.isas[0]!, 1);
    const q = new Float32Array(4 * 8);
    const kv = new Float32Array(4 * 8);
    assert.throws(() => ops.attentionForward(q, kv, kv, new Float32Array(64), q, Int32Array.of(4, 0, 3, 2, 8, 4), 0.3), /multiple of kvHeads/);
    assert.throws(() => ops.attentionForward(q, kv, kv, new Float32Array(1), q, Int32Array.of(4, 0, 1, 1, 8, 4), 0.3), /'probs' has 1 elements/);
  });

  test('native batch attention checks every sequence: a prefix longer than its rows or a wrong index is an error', () => {
    const ops = binding.create(binding.isas[0]!, 1);
    const q = new Float32Array(2 * 8);
    const prefix = new Float32Array(3 * 8); // one prefix sequence of 3 rows
    const big = new Float32Array(1000);
    const call = (meta: Int32Array) => ops.attentionBatchForward(q, q, q, prefix, prefix, big, q, meta, Int32Array.of(2, 1, 1, 1, 8, 4, 3, 1), 0.3);
    assert.doesNotThrow(() => call(Int32Array.of(3, 2, 0, 0)));
    assert.throws(() => call(Int32Array.of(4, 2, 0, 0)), /longer than prefixSeqLen/);
    assert.throws(() => call(Int32Array.of(3, 2, 0, 1)), /prefix index lies outside/);
    assert.throws(() => call(Int32Array.of(3)), /'meta' must hold/);
    assert.throws(() => ops.attentionBatchForward(q, q, q, prefix, prefix, new Float32Array(2), q, Int32Array.of(3, 2, 0, 0), Int32Array.of(2, 1, 1, 1, 8, 4, 3, 1), 0.3), /'probs' has 2 elements/);
  });
}
