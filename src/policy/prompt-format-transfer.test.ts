import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinChatTemplate, jinjaChatTemplate } from '../engine/tokenizer/chat-template.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { encodeFormattedPrompt } from './encode-prompt.js';
import { packPromptFormat, unpackPromptFormat } from './prompt-format-transfer.js';

const tokenizer = CharTokenizer.standard();

test('a natural-format prompt (Jinja template, thinking switch, stop ids) is rebuilt on the other side with the same prompt ids', () => {
  const text = '{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}{% if add_generation_prompt %}A{% if enable_thinking is false %}!{% endif %}:{% endif %}';
  const format = { stopIds: [3, 4], chat: { template: jinjaChatTemplate(text, tokenizer, { specials: { bos_token: 'B', eos_token: 'E' } }), enableThinking: false } };
  const message = structuredClone(packPromptFormat(format));
  const again = unpackPromptFormat(message, tokenizer);
  assert.deepEqual(again.stopIds, [3, 4]);
  assert.equal(again.chat?.enableThinking, false);
  assert.deepEqual(encodeFormattedPrompt(tokenizer, again, 'GOAL R1'), encodeFormattedPrompt(tokenizer, format, 'GOAL R1'));
  assert.ok(encodeFormattedPrompt(tokenizer, again, 'GOAL R1').length > 'GOAL R1'.length + 3, 'the template was applied');
});

test('compact prompts carry only their stop ids; a built-in template cannot travel and says so', () => {
  assert.deepEqual(unpackPromptFormat(packPromptFormat({ stopIds: [1] }), tokenizer), { stopIds: [1] });
  assert.throws(() => packPromptFormat({ chat: { template: builtinChatTemplate(tokenizer) } }), /needs a Jinja chat template to move to another thread/);
});
