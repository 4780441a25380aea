// A real HF tokenizer through the model folder: `troupe model init --tokenizer`, `model
// logprobs --text --bos`, and save + load of a checkpoint keeping both tokenizer files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { modelInit, modelLogprobs } from '../../cli/model-command.js';
import { loadChatTemplate } from './chat-template.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { loadCheckpoint, saveCheckpoint } from '../io/checkpoint.js';
import { FIXTURE_NAMES, fixtureDir, fixtureExpected, readFixtureJson } from './fixtures.test-helper.js';

const root = testDir('troupe-hf-model-');
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

for (const [index, name] of FIXTURE_NAMES.entries()) {
  test(`${name}: model init --tokenizer, then logprobs --text --bos, save and load keep both tokenizer files`, () => {
    const expected = fixtureExpected(name);
    const dir = join(root, name);
    const vocab = expected.vocabSize + 5; // a model's vocab may be padded past the tokenizer's
    modelInit({ hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab, seed: 3 + index, out: dir, tokenizer: join(fixtureDir(name), 'tokenizer.json') });

    const boardCase = expected.cases.find((c) => c.text.startsWith('PLAN 1/4'));
    assert.ok(boardCase !== undefined);
    const { ids, logprobs } = modelLogprobs(dir, { text: boardCase.text, bos: true });
    assert.deepEqual(ids, [expected.special.bos, ...boardCase.ids]);
    assert.equal(logprobs.length, ids.length - 1);
    assert.ok(logprobs.every((lp) => Number.isFinite(lp) && lp < 0), 'every token gets a proper logprob');

    assert.deepEqual(readJson(join(dir, 'tokenizer.json')), readFixtureJson(name, 'tokenizer.json'));
    assert.deepEqual(readJson(join(dir, 'tokenizer_config.json')), readFixtureJson(name, 'tokenizer_config.json'));
    const config = readJson(join(dir, 'config.json')) as { bos_token_id: number; eos_token_id: number; vocab_size: number };
    assert.deepEqual([config.bos_token_id, config.eos_token_id, config.vocab_size], [expected.special.bos, expected.special.eos, vocab]);

    // Load, save elsewhere, load again: the files and the tokenizer survive unchanged.
    const loaded = loadCheckpoint(dir);
    const again = join(root, `${name}-again`);
    saveCheckpoint(again, loaded);
    assert.deepEqual(readJson(join(again, 'tokenizer.json')), readFixtureJson(name, 'tokenizer.json'));
    assert.deepEqual(readJson(join(again, 'tokenizer_config.json')), readFixtureJson(name, 'tokenizer_config.json'));
    const reloaded = loadCheckpoint(again).tokenizer;
    assert.deepEqual(reloaded.special, loaded.tokenizer.special);
    for (const c of expected.cases) assert.deepEqual(reloaded.encode(c.text), c.ids, JSON.stringify(c.text));

    // The kept tokenizer_config.json carries the chat template the server renders.
    const chat = loadChatTemplate(again, reloaded);
    assert.equal(chat.source, 'tokenizer_config');
    assert.equal(chat.render([{ role: 'user', content: 'U, R' }], { addGenerationPrompt: true }), '<s>user: U, R\nassistant:');
  });
}

test('a chat_template.jinja beside the tokenizer survives a save (into tokenizer_config.json)', () => {
  const name = FIXTURE_NAMES[0]!;
  const dir = join(root, `${name}-jinja`);
  modelInit({ hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab: fixtureExpected(name).vocabSize, seed: 1, out: dir, tokenizer: join(fixtureDir(name), 'tokenizer.json') });
  const text = '{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<reply>{% endif %}';
  writeFileSync(join(dir, 'chat_template.jinja'), text);
  const loaded = loadCheckpoint(dir);
  assert.equal(loaded.tokenizer.tokenizerConfig?.()?.chat_template, text);
  const saved = join(root, `${name}-jinja-saved`);
  saveCheckpoint(saved, loaded);
  assert.equal((readJson(join(saved, 'tokenizer_config.json')) as { chat_template: string }).chat_template, text);
  const chat = loadChatTemplate(saved, loadCheckpoint(saved).tokenizer);
  assert.equal(chat.source, 'tokenizer_config');
  assert.equal(chat.render([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true }), loadChatTemplate(dir, loaded.tokenizer).render([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true }));
  assert.equal(loadChatTemplate(dir, loaded.tokenizer).source, 'chat_template.jinja');
});
