import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel } from '../engine/io/model-checkpoint.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { makeTinyModelDir } from '../serve/tiny-model.test-helper.js';
import { EmbeddedPolicy } from './embedded-policy.js';
import { promptFormatOf } from './prompt-format.js';

const template = "{% for m in messages %}[{{ m.role | upper }}]{{ m.content }}{% endfor %}{% if add_generation_prompt %}[A]{% if enable_thinking is defined and not enable_thinking %}[NT]{% endif %}{% endif %}";
const request = { prompt: 'GRID 1', n: 1, seed: 3, temperature: 0, topP: 1, topK: 0, maxTokens: 6, stop: [] };

test('natural-format prompts go through the folder chat template with enable_thinking; compact ones stay raw', async () => {
  const folder = makeTinyModelDir({ chatTemplate: template });
  try {
    writeFileSync(join(folder.dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [5, 9] }));
    const { model, tokenizer } = loadModel(createReferenceKernels(), folder.dir);
    const natural = promptFormatOf(folder.dir, tokenizer, { format: 'natural', enableThinking: false });
    assert.deepEqual(natural.stopIds, [...new Set([5, 9, tokenizer.special.eos!])].sort((a, b) => a - b));
    const chatPolicy = new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting: natural });
    const [[completion]] = await chatPolicy.sample([request]);
    assert.deepEqual(completion!.promptIds, tokenizer.encode('[USER]GRID 1[A][NT]'));

    const compact = promptFormatOf(folder.dir, tokenizer, { format: 'compact', enableThinking: false });
    assert.equal(compact.chat, undefined);
    const rawPolicy = new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting: compact });
    const [[raw]] = await rawPolicy.sample([request]);
    assert.deepEqual(raw!.promptIds, [tokenizer.special.bos!, ...tokenizer.encode('GRID 1')]);
    model.dispose();
  } finally {
    folder.remove();
  }
});

test('the policy stops at every stop id it is given', async () => {
  const folder = makeTinyModelDir();
  try {
    const { model, tokenizer } = loadModel(createReferenceKernels(), folder.dir);
    const free = new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting: { stopIds: [] } });
    const [[unstopped]] = await free.sample([{ ...request, maxTokens: 8 }]);
    const ids = unstopped!.ids!;
    const at = ids.findIndex((id, i) => i >= 1 && !ids.slice(0, i).includes(id));
    assert.ok(at >= 1, `greedy ids ${ids} need a new token after the first`);
    const stopping = new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting: { stopIds: [ids[at]!] } });
    const [[stopped]] = await stopping.sample([{ ...request, maxTokens: 8 }]);
    assert.deepEqual(stopped!.ids, ids.slice(0, at + 1));
    assert.equal(stopped!.finishReason, 'stop');
    model.dispose();
  } finally {
    folder.remove();
  }
});
