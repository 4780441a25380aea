import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { BufferPool } from '../autograd/buffer-pool.js';
import { Tape } from '../autograd/tape.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { createWasmKernels } from '../kernels/wasm-kernels.js';
import type { Kernels } from '../kernels/types.js';
import { AdamW } from '../optim/adamw.js';
import { clipGradNorm } from '../optim/clip-grad-norm.js';
import { cosineLr } from '../optim/cosine-schedule.js';
import { llamaConfig } from './llama-config.js';
import { LlamaModel } from './llama-model.js';
import { languageModelLoss } from './lm-loss.js';

const TEXT = `the quick brown fox jumps over the lazy dog. the dog sleeps in the sun and the fox runs
to the wood. a fox is quick and a dog is lazy. the sun is warm and the wood is dark. the fox
and the dog are friends now; they share the sun and the wood. the end of the story is near.
`;

/** Trains a small char-level model on TEXT; returns the loss of every step. */
function trainCharModel(kernels: Kernels, options: { seed: number; steps: number }): { losses: number[]; vocab: number } {
  const chars = [...new Set(TEXT)].sort();
  const ids = [...TEXT].map((c) => chars.indexOf(c));
  const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 64, vocab: chars.length, context: 32 });
  const model = LlamaModel.create(kernels, config, { seed: options.seed });
  const opt = new AdamW(kernels, model.trainableParameters(), { weightDecay: 0.01 });
  const rng = Rng.derive(options.seed, 'windows');
  const losses: number[] = [];
  const pool = new BufferPool(kernels);
  for (let step = 0; step < options.steps; step++) {
    const rows = Array.from({ length: 8 }, () => {
      const start = rng.int(ids.length - 25);
      return ids.slice(start, start + 25);
    });
    const tape = new Tape(kernels, { pool });
    const loss = languageModelLoss(tape, model, rows);
    losses.push(loss.data[0]!);
    tape.backward(loss);
    tape.dispose();
    clipGradNorm(kernels, opt.parameters.values(), 1);
    opt.step(cosineLr({ step, warmupSteps: 5, totalSteps: options.steps, maxLr: 3e-2, minLr: 3e-3 }));
    opt.zeroGrad();
  }
  pool.clear();
  opt.dispose();
  model.dispose();
  return { losses, vocab: chars.length };
}

test('a char-level model learns a small text far below the uniform loss, deterministically (wasm, 2 threads)', async () => {
  const kernels = await createWasmKernels({ threads: 2 });
  const run = trainCharModel(kernels, { seed: 1, steps: 40 });
  const uniform = Math.log(run.vocab);
  const first = run.losses[0]!;
  const last = run.losses.slice(-5).reduce((a, b) => a + b, 0) / 5;
  assert.ok(Math.abs(first - uniform) < 0.2, `initial loss ${first} should be near ln V = ${uniform}`);
  assert.ok(last < 0.5 * uniform, `final loss ${last} should be far below ln V = ${uniform}`);
  const again = trainCharModel(kernels, { seed: 1, steps: 40 });
  assert.deepEqual(again.losses, run.losses, 'same seed, same losses');
  // The reference kernels follow the same trajectory (float rounding apart) for a few steps.
  const reference = trainCharModel(createReferenceKernels(), { seed: 1, steps: 4 });
  reference.losses.forEach((l, i) => assert.ok(Math.abs(l - run.losses[i]!) < 1e-3, `step ${i}: reference ${l} vs wasm ${run.losses[i]}`));
  await kernels.dispose();
});
