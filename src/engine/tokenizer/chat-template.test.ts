import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { CharTokenizer } from './char-tokenizer.js';
import { builtinChatTemplate, jinjaChatTemplate, loadChatTemplate } from './chat-template.js';
import { loadStopTokenIds } from './stop-tokens.js';

const tokenizer = CharTokenizer.standard();
const messages = [
  { role: 'system', content: 'BE BRIEF' },
  { role: 'user', content: 'GRID 1' },
];
const specials = { bos_token: '<bos>', eos_token: '<eos>' };
const generate = { addGenerationPrompt: true };

test('built-in template: BOS, then the contents joined by newlines', () => {
  const t = builtinChatTemplate(tokenizer);
  assert.deepEqual(t.encode(messages, generate), [tokenizer.special.bos!, ...tokenizer.encode('BE BRIEF\nGRID 1')]);
  assert.equal(t.render(messages, generate), '<bos>BE BRIEF\nGRID 1');
});

// A ChatML-like template in upper case (the standard vocabulary has no lower-case letters).
const template =
  "{{ bos_token }}{% for m in messages %}[{{ m.role | upper }}]{{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}[ASSISTANT]{% endif %}";

// Our own template with a thinking switch in the style Qwen3 uses: thinking unless told not to.
const thinkingTemplate =
  "{% for m in messages %}[{{ m.role | upper }}]{{ m.content }}{% endfor %}{% if add_generation_prompt %}[ASSISTANT]{% if enable_thinking is defined and enable_thinking is false %}[NO THINK]{% else %}[THINK]{% endif %}{% endif %}{% if style is defined %}[{{ style }}]{% endif %}";

test('a Jinja template is rendered with its specials and add_generation_prompt', () => {
  const t = jinjaChatTemplate(template, tokenizer, { specials });
  assert.equal(t.render(messages, generate), '<bos>[SYSTEM]BE BRIEF<eos>[USER]GRID 1<eos>[ASSISTANT]');
  assert.equal(t.render(messages, { addGenerationPrompt: false }), '<bos>[SYSTEM]BE BRIEF<eos>[USER]GRID 1<eos>');
  const ids = t.encode(messages, generate);
  assert.equal(ids[0], tokenizer.special.bos, 'BOS comes from the template, recognised as the special token');
  assert.equal(ids.filter((id) => id === tokenizer.special.eos).length, 2);
});

test('an assistant turn\'s tool_calls and reasoning_content reach the template; other fields do not', () => {
  // Upper case only: the standard vocabulary has no lower-case letters.
  const t = jinjaChatTemplate(
    '{% for m in messages %}[{{ m.role | upper }}]{% if m.reasoning_content %}[THINK]{{ m.reasoning_content }}{% endif %}{% for c in m.tool_calls or [] %}[CALL]{{ c.function.name }}({{ c.function.arguments | tojson }}){% endfor %}{{ m.content }}{{ m.extra }}{% endfor %}',
    tokenizer,
    { specials },
  );
  const call = { role: 'assistant', content: '', reasoning_content: 'WALL LEFT', tool_calls: [{ type: 'function', function: { name: 'BFS', arguments: { G: 'S.G' } } }], extra: 'X' };
  assert.equal(t.render([{ role: 'user', content: 'GRID 1' }, call], { addGenerationPrompt: false }), '[USER]GRID 1[ASSISTANT][THINK]WALL LEFT[CALL]BFS({"G": "S.G"})');
});

test('enable_thinking reaches the template only when given; other kwargs pass through', () => {
  const t = jinjaChatTemplate(thinkingTemplate, tokenizer, { specials });
  const user = messages.slice(1);
  assert.equal(t.render(user, generate), '[USER]GRID 1[ASSISTANT][THINK]', 'undefined: the template default');
  assert.equal(t.render(user, { ...generate, enableThinking: true }), '[USER]GRID 1[ASSISTANT][THINK]');
  assert.equal(t.render(user, { ...generate, enableThinking: false }), '[USER]GRID 1[ASSISTANT][NO THINK]');
  assert.equal(t.render(user, { ...generate, kwargs: { enable_thinking: false, style: 'TERSE' } }), '[USER]GRID 1[ASSISTANT][NO THINK][TERSE]');
  assert.equal(t.render(user, { ...generate, enableThinking: true, kwargs: { enable_thinking: false } }), '[USER]GRID 1[ASSISTANT][THINK]', 'the explicit switch wins over kwargs');
  assert.equal(t.render(user, { ...generate, kwargs: { messages: [], add_generation_prompt: false } }), '[USER]GRID 1[ASSISTANT][THINK]', 'kwargs cannot replace the conversation');
});

test('raise_exception in a template becomes an input error about the messages', () => {
  const t = jinjaChatTemplate("{% if messages[0].role != 'user' %}{{ raise_exception('FIRST MESSAGE MUST BE USER') }}{% endif %}X", tokenizer, { specials });
  assert.throws(() => t.render(messages, generate), (e) => e instanceof TroupeError && e.category === 'input' && /^messages: .*FIRST MESSAGE MUST BE USER/.test(e.message));
  assert.equal(t.render(messages.slice(1), generate), 'X');
});

test('a model folder: chat_template.jinja first, then tokenizer_config (string or named list), else built-in', () => {
  const dir = testDir('troupe-chat-template-');
  const configPath = join(dir, 'tokenizer_config.json');
  const config = { bos_token: '<bos>', eos_token: { content: '<eos>' } };
  writeFileSync(configPath, JSON.stringify(config));
  assert.equal(loadChatTemplate(dir, tokenizer).source, 'builtin');
  writeFileSync(configPath, JSON.stringify({ ...config, chat_template: [{ name: 'tool_use', template: 'TOOLS' }, { name: 'default', template }] }));
  const fromList = loadChatTemplate(dir, tokenizer);
  assert.equal(fromList.source, 'tokenizer_config');
  assert.equal(fromList.render(messages.slice(1), generate), '<bos>[USER]GRID 1<eos>[ASSISTANT]');
  writeFileSync(join(dir, 'chat_template.jinja'), thinkingTemplate);
  const fromFile = loadChatTemplate(dir, tokenizer);
  assert.equal(fromFile.source, 'chat_template.jinja');
  assert.equal(fromFile.render(messages.slice(1), { ...generate, enableThinking: false }), '[USER]GRID 1[ASSISTANT][NO THINK]');
  writeFileSync(join(dir, 'chat_template.jinja'), '{% for m in messages %}');
  assert.throws(() => loadChatTemplate(dir, tokenizer), (e) => e instanceof TroupeError && /chat_template\.jinja does not parse as Jinja/.test(e.message));
  rmSync(join(dir, 'chat_template.jinja'));
  writeFileSync(configPath, JSON.stringify({ ...config, chat_template: 7 }));
  assert.throws(() => loadChatTemplate(dir, tokenizer), (e) => e instanceof TroupeError && /tokenizer_config\.json: chat_template must be a string or a list of \{"name", "template"\} objects, got 7/.test(e.message));
});

test('stop tokens: generation_config.json eos_token_id (a number or a list) plus the tokenizer eos', () => {
  const dir = testDir('troupe-stop-tokens-');
  const eos = tokenizer.special.eos!;
  assert.deepEqual(loadStopTokenIds(dir, tokenizer), [eos]);
  writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [40, 7, 40], bos_token_id: 1 }));
  assert.deepEqual(loadStopTokenIds(dir, tokenizer), [...new Set([7, 40, eos])].sort((a, b) => a - b));
  writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: 9 }));
  assert.deepEqual(loadStopTokenIds(dir, tokenizer), [...new Set([9, eos])].sort((a, b) => a - b));
  writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: ['<eos>'] }));
  assert.throws(() => loadStopTokenIds(dir, tokenizer), (e) => e instanceof TroupeError && /generation_config\.json: eos_token_id must be a token id or a list of them, got \["<eos>"\]/.test(e.message));
});
