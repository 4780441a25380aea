import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { builtinChatTemplate, jinjaChatTemplate, loadChatTemplate } from './chat-template.js';
import { makeTinyModelDir } from './tiny-model.test-helper.js';

const tokenizer = CharTokenizer.standard();
const messages = [
  { role: 'system', content: 'BE BRIEF' },
  { role: 'user', content: 'GRID 1' },
];

test('built-in template: BOS, then the contents joined by newlines', () => {
  const t = builtinChatTemplate(tokenizer);
  assert.deepEqual(t.encode(messages, true), [tokenizer.special.bos!, ...tokenizer.encode('BE BRIEF\nGRID 1')]);
  assert.equal(t.render(messages, true), '<bos>BE BRIEF\nGRID 1');
});

// A ChatML-like template in upper case (the standard vocabulary has no lower-case letters).
const template =
  "{{ bos_token }}{% for m in messages %}[{{ m.role | upper }}]{{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}[ASSISTANT]{% endif %}";

test('tokenizer_config chat_template is rendered with Jinja and its specials', () => {
  const t = jinjaChatTemplate(template, tokenizer, { bos_token: '<bos>', eos_token: '<eos>' });
  const text = t.render(messages, true);
  assert.equal(text, '<bos>[SYSTEM]BE BRIEF<eos>[USER]GRID 1<eos>[ASSISTANT]');
  assert.equal(t.render(messages, false), '<bos>[SYSTEM]BE BRIEF<eos>[USER]GRID 1<eos>');
  const ids = t.encode(messages, true);
  assert.equal(ids[0], tokenizer.special.bos, 'BOS comes from the template, recognised as the special token');
  assert.equal(ids.filter((id) => id === tokenizer.special.eos).length, 2);
});

test('raise_exception in a template becomes a 400 about the messages', () => {
  const t = jinjaChatTemplate("{% if messages[0].role != 'user' %}{{ raise_exception('FIRST MESSAGE MUST BE USER') }}{% endif %}X", tokenizer, { bos_token: '<bos>', eos_token: '<eos>' });
  assert.throws(() => t.render(messages, true), (e: any) => e.status === 400 && /FIRST MESSAGE MUST BE USER/.test(e.message));
  assert.equal(t.render(messages.slice(1), true), 'X');
});

test('a model folder uses its tokenizer_config template when there is one', () => {
  const plain = makeTinyModelDir();
  const templated = makeTinyModelDir({ chatTemplate: template });
  try {
    assert.equal(loadChatTemplate(plain.dir, tokenizer).source, 'builtin');
    const t = loadChatTemplate(templated.dir, tokenizer);
    assert.equal(t.source, 'tokenizer_config');
    assert.equal(t.render(messages.slice(1), true), '<bos>[USER]GRID 1<eos>[ASSISTANT]');
  } finally {
    plain.remove();
    templated.remove();
  }
});
