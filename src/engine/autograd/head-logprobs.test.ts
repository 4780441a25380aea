import assert from 'node:assert/strict';
import { test } from 'node:test';
import { f32ToBf16, bf16ToF32 } from '../io/half-float.js';
import { randomArray, newRng } from '../kernels/conformance-helpers.js';
import { getKernels } from '../kernels/get-kernels.js';
import { createReferenceKernels } from '../kernels/reference.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor } from '../tensor.js';
import { headLogprobs } from './head-logprobs.js';
import { scale } from './elementwise.js';
import { linear } from './linear.js';
import { loraLinear } from './lora-linear.js';
import { logSoftmaxGather } from './log-softmax-gather.js';
import { Tape } from './tape.js';

/** The fused, chunked head equals linear + logSoftmaxGather: values, entropy, dx and dW. */
const kernels = createReferenceKernels({ bf16Matmul: 'exact' }); // bf16 heads: the float32 product is the definition
const [rows, hidden, vocab] = [7, 5, 11];
const targets = [0, 10, 3, 3, 7, 1, 9];
const rng = newRng('head-logprobs');
const xValues = randomArray(rng, rows * hidden, 2);
const wValues = randomArray(rng, vocab * hidden, 2);
const g = randomArray(rng, rows);

function run(fused: boolean, chunkRows: number, bf16: boolean): { out: number[]; entropy: number[]; dx: number[]; dw: number[] | null } {
  const tape = new Tape(kernels);
  const x = new Tensor([rows, hidden], Float32Array.from(xValues), true);
  let w: Tensor;
  if (bf16) {
    w = Tensor.bf16(kernels, [vocab, hidden]);
    f32ToBf16(wValues, w.bits);
  } else {
    w = new Tensor([vocab, hidden], Float32Array.from(wValues), true);
  }
  const entropy = new Float32Array(rows);
  const out = fused ? headLogprobs(tape, x, w, targets, { entropy, chunkRows }) : logSoftmaxGather(tape, linear(tape, x, w), targets, { entropy });
  const values = Array.from(out.data);
  tape.backward(out, g);
  const result = { out: values, entropy: Array.from(entropy), dx: Array.from(x.grad!), dw: w.dtype === 'f32' ? Array.from(w.grad!) : null };
  tape.dispose();
  return result;
}

function close(a: readonly number[], b: readonly number[], label: string): void {
  assert.equal(a.length, b.length, label);
  a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) <= 1e-6 * (1 + Math.abs(b[i]!)), `${label}[${i}]: ${v} vs ${b[i]}`));
}

test('headLogprobs equals linear + logSoftmaxGather for any chunk size (values, entropy, dx, dW)', () => {
  const expected = run(false, 0, false);
  for (const chunkRows of [1, 2, 3, 7, 100]) {
    const got = run(true, chunkRows, false);
    close(got.out, expected.out, `out chunk ${chunkRows}`);
    close(got.entropy, expected.entropy, `entropy chunk ${chunkRows}`);
    close(got.dx, expected.dx, `dx chunk ${chunkRows}`);
    close(got.dw!, expected.dw!, `dW chunk ${chunkRows}`);
  }
});

test('headLogprobs through a frozen bf16 head equals the float32 head of the rounded weights', () => {
  const rounded = new Uint16Array(wValues.length);
  f32ToBf16(wValues, rounded);
  const widened = new Float32Array(wValues.length);
  bf16ToF32(rounded, widened);
  const saved = Float32Array.from(wValues);
  wValues.set(widened);
  const expected = run(false, 0, false);
  wValues.set(saved);
  const got = run(true, 3, true);
  close(got.out, expected.out, 'out');
  close(got.dx, expected.dx, 'dx');
  assert.equal(got.dw, null);
});

test('headLogprobs keeps the log-softmax for backward when all rows fit, and recomputes it per chunk when not', () => {
  // Head products (forward and backward) per run: kept = 1 forward + 1 dx + 1 dW; chunked
  // = per chunk 1 forward + 1 recomputed + 1 dx + 1 dW.
  const counted = (chunkRows: number): number => {
    let products = 0;
    const counting = { ...kernels, matmul: (args: Parameters<typeof kernels.matmul>[0]) => { products++; kernels.matmul(args); } };
    const tape = new Tape(counting);
    const x = new Tensor([rows, hidden], Float32Array.from(xValues), true);
    const w = new Tensor([vocab, hidden], Float32Array.from(wValues), true);
    tape.backward(headLogprobs(tape, x, w, targets, { chunkRows }), g);
    tape.dispose();
    return products;
  };
  assert.equal(counted(rows), 3, 'all rows fit: no head product is recomputed in backward');
  assert.equal(counted(100), 3);
  assert.equal(counted(4), 8, 'two chunks: each recomputes its logits in backward');
});

test('headLogprobs with a logit mask equals the head without the masked rows (values, entropy, dx, dW), on the reference and the default kernels', async () => {
  const mask = [2, 8]; // no target is masked: a masked id is never sampled
  const kept = Array.from({ length: vocab }, (_, i) => i).filter((i) => !mask.includes(i));
  const scored = (k: Kernels, masked: boolean) => {
    const tape = new Tape(k);
    const x = new Tensor([rows, hidden], Float32Array.from(xValues), true);
    const ids = masked ? Array.from({ length: vocab }, (_, i) => i) : kept;
    const w = new Tensor([ids.length, hidden], Float32Array.from(ids.flatMap((i) => Array.from(wValues.subarray(i * hidden, (i + 1) * hidden)))), true);
    const entropy = new Float32Array(rows);
    const out = headLogprobs(tape, x, w, masked ? targets : targets.map((t) => kept.indexOf(t)), { entropy, ...(masked ? { logitMask: mask } : {}) });
    const values = Array.from(out.data);
    tape.backward(out, g);
    const dw = Array.from(w.grad!);
    const result = { out: values, entropy: Array.from(entropy), dx: Array.from(x.grad!), dw: masked ? kept.flatMap((i) => dw.slice(i * hidden, (i + 1) * hidden)) : dw, maskedDw: masked ? mask.flatMap((i) => dw.slice(i * hidden, (i + 1) * hidden)) : [] };
    tape.dispose();
    return result;
  };
  for (const k of [kernels, await getKernels()]) {
    const [got, expected] = [scored(k, true), scored(k, false)];
    close(got.out, expected.out, `${k.name} out`);
    close(got.entropy, expected.entropy, `${k.name} entropy`);
    close(got.dx, expected.dx, `${k.name} dx`);
    close(got.dw, expected.dw, `${k.name} dW of the kept rows`);
    assert.ok(got.maskedDw.every((v) => v === 0), `${k.name}: the masked rows get no gradient`);
  }
  assert.throws(() => headLogprobs(new Tape(kernels), new Tensor([rows, hidden], Float32Array.from(xValues)), new Tensor([vocab, hidden], Float32Array.from(wValues)), targets, { logitMask: [vocab] }), /logit mask id 11 is outside the model's vocabulary 0\.\.10/);
});

test('headLogprobs with a LoRA head pair equals loraLinear + logSoftmaxGather for any chunk size (values, dx, dA, dB)', () => {
  const r = 3;
  const loraScale = 2.5;
  const aValues = randomArray(rng, r * hidden, 1);
  const bValues = randomArray(rng, vocab * r, 1); // non-zero, as after some training
  const scored = (fused: boolean, chunkRows: number) => {
    const tape = new Tape(kernels);
    const x = new Tensor([rows, hidden], Float32Array.from(xValues), true);
    const w = new Tensor([vocab, hidden], Float32Array.from(wValues)); // frozen, as under LoRA
    const a = new Tensor([r, hidden], Float32Array.from(aValues), true);
    const b = new Tensor([vocab, r], Float32Array.from(bValues), true);
    const out = fused
      ? headLogprobs(tape, x, w, targets, { chunkRows, lowRank: { down: scale(tape, linear(tape, x, a), loraScale), b } })
      : logSoftmaxGather(tape, loraLinear(tape, x, w, undefined, { a, b, scale: loraScale }), targets);
    const values = Array.from(out.data);
    tape.backward(out, g);
    const result = { out: values, dx: Array.from(x.grad!), da: Array.from(a.grad!), db: Array.from(b.grad!) };
    tape.dispose();
    return result;
  };
  const expected = scored(false, 0);
  const withoutPair = run(false, 0, false).out;
  assert.ok(expected.out.some((v, i) => Math.abs(v - withoutPair[i]!) > 1e-3), 'the pair changes the log-probs');
  for (const chunkRows of [1, 3, 100]) {
    const got = scored(true, chunkRows);
    close(got.out, expected.out, `out chunk ${chunkRows}`);
    close(got.dx, expected.dx, `dx chunk ${chunkRows}`);
    close(got.da, expected.da, `dA chunk ${chunkRows}`);
    close(got.db, expected.db, `dB chunk ${chunkRows}`);
  }
});
