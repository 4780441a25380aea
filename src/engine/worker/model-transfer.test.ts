import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Rng } from '../../util/rng.js';
import { Tape } from '../autograd/tape.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { applyWeights, packModel, packTokenizer, packTrainableWeights, unpackModel, unpackTokenizer } from './model-transfer.js';

const kernels = createReferenceKernels();
const config = llamaConfig({ hidden: 8, layers: 2, heads: 2, kvHeads: 1, intermediate: 12, vocab: 9 });
const pairs = [{ promptIds: [1, 2], responseIds: [3, 4, 5] }];
const lora = { r: 2, alpha: 4, targetModules: ['q_proj', 'down_proj'] as const };

function score(model: LlamaModel, adapter?: string): number[] {
  const tape = new Tape(model.kernels, { grad: false });
  const values = Array.from(model.tokenLogprobs(tape, pairs, { adapter }).logprobs.data);
  tape.dispose();
  return values;
}

function nudge(model: LlamaModel, seed: number, adapter?: string): void {
  const rng = new Rng(seed);
  for (const t of model.trainableParameters(adapter).values()) for (let i = 0; i < t.size; i++) t.data[i]! += (rng.next() * 2 - 1) * 0.2;
}

test('a packed model unpacks to the same scores, frozen, with its adapters; a bf16 base stays bf16', () => {
  const model = LlamaModel.create(kernels, config, { seed: 3 });
  model.addAdapter('tool', { ...lora, targetModules: [...lora.targetModules] }, 5);
  nudge(model, 1, 'tool');
  const copy = unpackModel(kernels, packModel(model).message);
  assert.deepEqual(score(copy), score(model));
  assert.deepEqual(score(copy, 'tool'), score(model, 'tool'));
  assert.notDeepEqual(score(copy, 'tool'), score(copy), 'the adapter was copied, not re-created empty');
  assert.equal(copy.trainableParameters().size, 0, 'the copy takes no gradients');
  assert.ok([...copy.adapters.get('tool')!.parameters.values()].every((t) => !t.requiresGrad && t.grad === null));

  model.freezeBase();
  model.setBaseDtype('bf16');
  const half = unpackModel(kernels, packModel(model).message);
  assert.equal(half.baseDtype, 'bf16');
  assert.deepEqual(score(half, 'tool'), score(model, 'tool'));
});

test('after an update only the trainable weights travel, and the copy then scores as the original', () => {
  const full = LlamaModel.create(kernels, config, { seed: 4 });
  const copy = unpackModel(kernels, packModel(full).message);
  nudge(full, 2);
  assert.notDeepEqual(score(copy), score(full));
  const update = packTrainableWeights(full);
  assert.equal(update.message.parameters.length, full.parameters.size, 'full fine-tuning: every weight');
  applyWeights(copy, update.message);
  assert.deepEqual(score(copy), score(full));

  const base = LlamaModel.create(kernels, config, { seed: 4 });
  base.addAdapter('plan', { ...lora, targetModules: [...lora.targetModules] }, 6);
  base.freezeBase();
  const loraCopy = unpackModel(kernels, packModel(base).message);
  nudge(base, 3, 'plan');
  const adapters = packTrainableWeights(base);
  assert.equal(adapters.message.parameters.length, 0, 'a frozen base never travels again');
  assert.equal(adapters.message.adapters[0]!.parameters.length, base.adapters.get('plan')!.parameters.size);
  applyWeights(loraCopy, adapters.message);
  assert.deepEqual(score(loraCopy, 'plan'), score(base, 'plan'));
});

test('the messages cross to a worker thread (structured clone with transferred buffers) and the tokenizer comes back the same', async () => {
  const model = LlamaModel.create(kernels, config, { seed: 7 });
  const packed = packModel(model);
  const tokenizer = CharTokenizer.standard();
  const echo = new Worker('const { parentPort } = require("node:worker_threads"); parentPort.once("message", (m) => parentPort.postMessage(m));', { eval: true });
  const back = await new Promise<any>((resolve) => {
    echo.once('message', resolve);
    echo.postMessage({ model: packed.message, tokenizer: packTokenizer(tokenizer) }, packed.transfer);
  });
  await echo.terminate();
  assert.equal(packed.message.parameters[0]!.values.length, 0, 'the buffers were moved, not copied');
  assert.deepEqual(score(unpackModel(kernels, back.model)), score(model));
  const again = unpackTokenizer(back.tokenizer);
  assert.deepEqual(again.encode('PLAN R2\n'), tokenizer.encode('PLAN R2\n'));
  assert.equal(again.vocabSize, tokenizer.vocabSize);
});
