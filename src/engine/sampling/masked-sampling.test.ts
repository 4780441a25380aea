// A padded vocabulary (more embedding rows than tokenizer ids, as in every Qwen3 checkpoint):
// without a mask the model samples the padded ids, which stay in `ids` and decode to no text;
// with the mask it never does, and the log-probs it records equal the learner's with the same
// mask (and not without it: the mask changes the distribution both sides score).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tape } from '../autograd/tape.js';
import { randomLlamaTensors } from '../io/random-tensors.js';
import { getKernels } from '../kernels/get-kernels.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { idsWithoutToken } from '../tokenizer/ids-without-token.js';
import { Sampler } from './generate.js';

const tokenizer = CharTokenizer.standard(); // 64 ids
const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, intermediate: 48, vocab: 100, context: 64 });
const request = { promptIds: [1, ...tokenizer.encode('PLAN:')], n: 8, seed: 3, maxTokens: 24, temperature: 1, stopIds: [] };

test('padded ids: sampled and kept as ids without a mask, never sampled with one; recorded log-probs equal the masked learner to 1e-5', async () => {
  const kernels = await getKernels();
  const model = LlamaModel.fromTensors(kernels, config, randomLlamaTensors(config, 1, 0.1));
  const mask = idsWithoutToken(tokenizer, config.vocab_size);
  assert.deepEqual(Array.from(mask), Array.from({ length: 36 }, (_, i) => 64 + i));

  const [free] = new Sampler(model, tokenizer).generate([request]);
  const padded = free!.flatMap((g) => g.ids).filter((id) => id >= 64);
  assert.ok(padded.length > 20, `a random model samples padded ids often (${padded.length} of ${8 * 24})`);
  for (const g of free!) {
    assert.equal(g.finishReason, 'length');
    assert.equal(g.text, tokenizer.decode(g.ids.filter((id) => id < 64), { skipSpecial: true }), 'the padded ids add no text');
  }

  const [masked] = new Sampler(model, tokenizer, { logitMask: mask }).generate([request]);
  const ids = masked!.map((g) => g.ids);
  assert.ok(ids.flat().every((id) => id < 64), 'the mask keeps every sample inside the tokenizer');
  const scored = (logitMask?: Int32Array): number[] => {
    const tape = new Tape(kernels, { grad: false });
    try {
      return Array.from(model.tokenLogprobs(tape, ids.map((responseIds) => ({ promptIds: request.promptIds, responseIds })), { logitMask }).logprobs.data);
    } finally {
      tape.dispose();
    }
  };
  const recorded = masked!.flatMap((g) => g.logprobs);
  const gap = (learner: number[]) => Math.max(...learner.map((l, i) => Math.abs(l - recorded[i]!)));
  assert.ok(gap(scored(mask)) <= 1e-5, `masked sampler vs masked learner: ${gap(scored(mask))}`);
  assert.ok(gap(scored()) > 1e-2, `the mask changes the distribution the learner scores (${gap(scored())})`);
  assert.throws(() => new Sampler(model, tokenizer, { logitMask: [100] }), /logit mask id 100 is outside the model's vocabulary 0\.\.99/);
});
