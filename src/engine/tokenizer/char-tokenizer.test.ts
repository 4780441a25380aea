import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TroupeError } from '../../util/errors.js';
import { CharTokenizer, STANDARD_ALPHABET } from './char-tokenizer.js';
import { tokenizerFromJson } from './load-tokenizer.js';

test('standard tokenizer has 64 ids: 4 specials then the alphabet', () => {
  const tok = CharTokenizer.standard();
  assert.equal(tok.vocabSize, 64);
  assert.equal(STANDARD_ALPHABET.length, 60);
  assert.deepEqual(tok.special, { pad: 0, bos: 1, eos: 2, unk: 3 });
  assert.deepEqual(tok.encode('\n 0A#'), [4, 5, 6, 16, 42]);
});

test('encode/decode round trip, specials recognised in text, unknown chars become <unk>', () => {
  const tok = CharTokenizer.standard();
  const text = 'GRID:\n#.S.G\nMOVES=[U,D,L,R] (3+4)*2=14 <eos>';
  const ids = tok.encode(text);
  assert.equal(ids.length, [...text].length - '<eos>'.length + 1);
  assert.equal(ids.at(-1), tok.special.eos);
  assert.equal(tok.decode(ids), text);
  assert.equal(tok.decode(ids, { skipSpecial: true }), text.slice(0, -'<eos>'.length));
  assert.deepEqual(tok.encode('a<b'), [3, tok.encode('<')[0], 3]);
  assert.ok(tok.encode('<').every((id) => id !== 3));
  // every id sequence survives decode -> encode
  const all = Array.from({ length: 64 }, (_, i) => 63 - i);
  assert.deepEqual(tok.encode(tok.decode(all)), all);
});

test('decode: ids past the vocabulary (padded model rows) give no text; negative or fractional ids are refused', () => {
  const tok = CharTokenizer.standard();
  const [a, b] = tok.encode('AB');
  assert.equal(tok.decode([a!, 64, b!, 1000]), 'AB');
  assert.equal(tok.decode([64]), '');
  assert.equal(tok.hasToken(63), true);
  assert.equal(tok.hasToken(64), false);
  for (const id of [-1, 2.5]) {
    assert.throws(() => tok.decode([1, id]), (e: unknown) => e instanceof TroupeError && new RegExp(`token id ${id} is not a token id`).test(e.message));
  }
});

test('fromText builds a sorted alphabet (astral characters are one token)', () => {
  const tok = CharTokenizer.fromText('hello, world 🙂');
  assert.deepEqual(tok.tokens.slice(4), [' ', ',', 'd', 'e', 'h', 'l', 'o', 'r', 'w', '🙂']);
  assert.equal(tok.encode('🙂').length, 1);
  assert.equal(tok.decode(tok.encode('world 🙂')), 'world 🙂');
});

test('tokenizer.json has the Hugging Face structure and loads back identically', () => {
  const tok = CharTokenizer.standard();
  const json = JSON.parse(JSON.stringify(tok.toTokenizerJson()));
  assert.equal(json.version, '1.0');
  assert.equal(json.truncation, null);
  assert.equal(json.padding, null);
  assert.equal(json.normalizer, null);
  assert.equal(json.post_processor, null);
  assert.deepEqual(json.decoder, { type: 'Fuse' });
  assert.deepEqual(json.pre_tokenizer, { type: 'Split', pattern: { Regex: '[\\s\\S]' }, behavior: 'Isolated', invert: false });
  assert.equal(json.model.type, 'WordLevel');
  assert.equal(json.model.unk_token, '<unk>');
  assert.equal(Object.keys(json.model.vocab).length, 64);
  assert.equal(json.model.vocab['\n'], 4);
  assert.deepEqual(json.added_tokens.map((t: { id: number; content: string; special: boolean }) => [t.id, t.content, t.special]), [
    [0, '<pad>', true], [1, '<bos>', true], [2, '<eos>', true], [3, '<unk>', true],
  ]);
  for (const key of ['single_word', 'lstrip', 'rstrip', 'normalized']) assert.equal(json.added_tokens[0][key], false);
  // The split regex must isolate every character, newlines included (JS and Oniguruma agree here).
  assert.deepEqual('A\n B'.match(new RegExp(json.pre_tokenizer.pattern.Regex, 'gu')), ['A', '\n', ' ', 'B']);

  const loaded = tokenizerFromJson(json);
  assert.equal(loaded.vocabSize, 64);
  assert.deepEqual(loaded.special, tok.special);
  const text = 'S.#G\n12+3=15<eos>';
  assert.deepEqual(loaded.encode(text), tok.encode(text));
});

test('broken tokenizer.json files give checkpoint errors', () => {
  const isCheckpoint = (pattern: RegExp) => (e: unknown) => e instanceof TroupeError && e.category === 'checkpoint' && pattern.test(e.message);
  // Other layouts go to HfTokenizer (hf-tokenizer.test.ts), which still refuses an empty one.
  assert.throws(() => tokenizerFromJson({ model: { type: 'BPE', vocab: {}, merges: [] }, pre_tokenizer: { type: 'ByteLevel' }, added_tokens: [] }, 'x/tokenizer.json'), isCheckpoint(/x\/tokenizer\.json.*vocabulary is empty/));
  const json = CharTokenizer.standard().toTokenizerJson() as { model: { vocab: Record<string, number> } };
  delete json.model.vocab['A'];
  assert.throws(() => tokenizerFromJson(json), isCheckpoint(/no token with id 16/));
});

test('the ascii tokenizer covers code: lower case, tabs, every printable character', () => {
  const t = CharTokenizer.ascii();
  assert.equal(t.vocabSize, 101);
  const code = 'def aux(x):\n\treturn {"k": x[0] ~ 1} | `y`\n';
  const ids = t.encode(code);
  assert.equal(ids.length, code.length);
  assert.ok(!ids.includes(t.special.unk!), 'no character falls back to <unk>');
  assert.equal(t.decode(ids), code);
});
