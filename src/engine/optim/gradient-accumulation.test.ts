import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scale } from '../autograd/elementwise.js';
import { Tape } from '../autograd/tape.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { languageModelLoss } from '../model/lm-loss.js';
import { AdamW } from './adamw.js';
import { clipGradNorm } from './clip-grad-norm.js';

const kernels = createReferenceKernels();
const config = llamaConfig({ hidden: 8, layers: 1, heads: 2, intermediate: 16, vocab: 10 });
const rows = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 0, 1, 2], [3, 3, 3, 3]];

/** One optimizer step from `micro` micro-batches, each loss scaled by 1/micro. */
function stepWith(micro: number): Float32Array {
  const model = LlamaModel.create(kernels, config, { seed: 1 });
  const opt = new AdamW(kernels, model.trainableParameters(), { weightDecay: 0.1 });
  const size = rows.length / micro;
  for (let i = 0; i < micro; i++) {
    const tape = new Tape(kernels);
    tape.backward(scale(tape, languageModelLoss(tape, model, rows.slice(i * size, (i + 1) * size)), 1 / micro));
    tape.dispose();
  }
  clipGradNorm(kernels, opt.parameters.values(), 0.5);
  opt.step(0.01);
  return Float32Array.from(model.parameters.get('model.layers.0.mlp.up_proj.weight')!.data);
}

test('accumulating gradients over micro-batches equals one step on the whole batch', () => {
  const whole = stepWith(1);
  const accumulated = stepWith(2);
  const four = stepWith(4);
  const initial = LlamaModel.create(kernels, config, { seed: 1 }).parameters.get('model.layers.0.mlp.up_proj.weight')!.data;
  assert.ok(whole.some((v, i) => Math.abs(v - initial[i]!) > 1e-4), 'the step changed the weights');
  whole.forEach((v, i) => {
    assert.ok(Math.abs(v - accumulated[i]!) < 1e-6, `element ${i}: ${v} vs ${accumulated[i]}`);
    assert.ok(Math.abs(v - four[i]!) < 1e-6, `element ${i}: ${v} vs ${four[i]}`);
  });
});
