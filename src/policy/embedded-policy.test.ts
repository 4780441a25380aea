import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { llamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { EmbeddedPolicy } from './embedded-policy.js';
import type { SampleRequest } from './types.js';

function tinyPolicy(adapter?: string): EmbeddedPolicy {
  const kernels = createReferenceKernels();
  const tokenizer = CharTokenizer.standard();
  const model = LlamaModel.create(kernels, llamaConfig({ hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab: 64, context: 64 }), { seed: 3 });
  if (adapter) model.addAdapter(adapter, { r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj'] }, 1);
  return new EmbeddedPolicy({ id: 'p', model, tokenizer, adapter });
}

const request: SampleRequest = { prompt: 'PLAN 1/4\nA:', n: 3, seed: 11, temperature: 1, topP: 1, topK: 0, maxTokens: 8, stop: ['\n'] };

test('samples n completions per request with ids, prompt ids and one logprob per token', async () => {
  const policy = tinyPolicy();
  const [row] = await policy.sample([request]);
  assert.equal(row!.length, 3);
  for (const c of row!) {
    assert.deepEqual(c.promptIds, policy.encodePrompt(request.prompt));
    assert.equal(c.promptIds![0], policy.tokenizer.special.bos);
    assert.equal(c.logprobs!.length, c.ids!.length);
    assert.ok(c.ids!.length >= 1 && c.ids!.length <= 8);
    assert.ok(c.logprobs!.every((lp) => lp <= 0 && Number.isFinite(lp)));
    // The text is the decoded ids, cut before the stop string.
    const decoded = policy.tokenizer.decode(c.ids!, { skipSpecial: true });
    assert.equal(decoded.split('\n')[0], c.text);
  }
});

test('same seed gives the same completions; another seed differs', async () => {
  const policy = tinyPolicy();
  const a = await policy.sample([request]);
  const b = await policy.sample([request]);
  const c = await policy.sample([{ ...request, seed: 12 }]);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a[0]!.map((x) => x.ids), c[0]!.map((x) => x.ids));
});

test('given prompt ids are used as they are (token-in)', async () => {
  const policy = tinyPolicy('tool');
  const promptIds = [policy.tokenizer.special.bos!, ...policy.tokenizer.encode('XY')];
  const [[completion]] = await policy.sample([{ ...request, n: 1, promptIds, prompt: 'ignored text' }]);
  assert.deepEqual(completion!.promptIds, promptIds);
});
