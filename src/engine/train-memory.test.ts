import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Tape } from './autograd/tape.js';
import { createReferenceKernels } from './kernels/reference.js';
import { llamaConfig } from './model/llama-config.js';
import { LlamaModel } from './model/llama-model.js';
import { languageModelLoss } from './model/lm-loss.js';
import { AdamW } from './optim/adamw.js';
import { countingKernels } from './train-memory.js';

test('a training step leaks nothing: after dispose only weights, gradients and moments stay', () => {
  const kernels = countingKernels(createReferenceKernels());
  const model = LlamaModel.create(kernels, llamaConfig({ hidden: 16, layers: 2, heads: 2, intermediate: 32, vocab: 12 }), { seed: 1 });
  const opt = new AdamW(kernels, model.trainableParameters());
  const longLived = kernels.liveBytes();
  assert.equal(longLived, model.parameterCount() * 4 * 4, 'weights + grads + two moments');
  for (let step = 0; step < 2; step++) {
    const tape = new Tape(kernels);
    const loss = languageModelLoss(tape, model, [[1, 2, 3, 4, 5, 6, 7, 8], [8, 7, 6, 5, 4, 3, 2, 1]]);
    const afterForward = kernels.liveBytes();
    assert.ok(afterForward > longLived);
    tape.backward(loss);
    tape.dispose();
    assert.equal(kernels.liveBytes(), longLived, `step ${step}: intermediates released`);
    opt.step(1e-3);
    opt.zeroGrad();
  }
  opt.dispose();
  model.dispose();
  assert.equal(kernels.liveBytes(), 0);
});
