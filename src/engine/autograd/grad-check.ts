import { Rng } from '../../util/rng.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor } from '../tensor.js';
import { Tape } from './tape.js';

/**
 * Compares backward against central finite differences (a test helper).
 * The loss is a random weighted sum of the output, sum_i w_i * out_i, accumulated in float64;
 * each input element is nudged by +-eps in float32 (the nudge actually stored is used for the
 * quotient). Returns, per input, the norm-wise relative error |analytic - numeric| / max(|a|, |n|).
 */
export function gradCheck(options: {
  kernels: Kernels;
  /** Leaf tensors to check (requiresGrad true); they are restored after each nudge. */
  inputs: readonly Tensor[];
  /** Builds the output from the inputs on the given tape (called many times). */
  build: (tape: Tape) => Tensor;
  seed?: number;
  eps?: number;
  /** Check at most this many elements per input (evenly spread), to keep big checks fast. */
  maxElements?: number;
}): number[] {
  const { kernels, inputs, build, eps = 1e-2, maxElements = Infinity } = options;
  const rng = new Rng(options.seed ?? 1);
  const tape = new Tape(kernels);
  const out = build(tape);
  const weights = Float64Array.from({ length: out.size }, () => rng.next() * 2 - 1);
  for (const x of inputs) x.grad?.fill(0);
  tape.backward(out, weights);
  const analytic = inputs.map((x) => Float64Array.from(x.grad ?? new Float32Array(x.size)));
  tape.dispose();

  const lossAt = (): number => {
    const t = new Tape(kernels, { grad: false });
    const o = build(t);
    let loss = 0;
    for (let i = 0; i < o.size; i++) loss += weights[i]! * o.data[i]!;
    t.dispose();
    return loss;
  };

  return inputs.map((x, index) => {
    const stride = Math.max(1, Math.floor(x.size / Math.min(x.size, maxElements)));
    let diff = 0;
    let normA = 0;
    let normN = 0;
    for (let i = 0; i < x.size; i += stride) {
      const original = x.data[i]!;
      x.data[i] = original + eps;
      const up = x.data[i]!;
      const lossUp = lossAt();
      x.data[i] = original - eps;
      const down = x.data[i]!;
      const lossDown = lossAt();
      x.data[i] = original;
      const numeric = (lossUp - lossDown) / (up - down);
      const a = analytic[index]![i]!;
      diff += (a - numeric) ** 2;
      normA += a * a;
      normN += numeric * numeric;
    }
    return Math.sqrt(diff) / Math.max(Math.sqrt(normA), Math.sqrt(normN), 1e-12);
  });
}

/** A leaf tensor of uniform(-scale, scale) values with a gradient buffer, for tests. */
export function randomLeaf(kernels: Kernels, shape: readonly number[], rng: Rng, scale = 1): Tensor {
  const size = shape.reduce((a, b) => a * b, 1);
  const data = kernels.alloc(size);
  for (let i = 0; i < size; i++) data[i] = (rng.next() * 2 - 1) * scale;
  return new Tensor(shape, data, true);
}
