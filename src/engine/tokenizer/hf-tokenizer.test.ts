import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { FIXTURE_NAMES, fixtureDir, fixtureExpected, readFixtureJson } from './fixtures.test-helper.js';
import { HfTokenizer } from './hf-tokenizer.js';
import { readTokenizer, tokenizerFromJson } from './load-tokenizer.js';

const isError = (category: string, pattern: RegExp) => (e: unknown) =>
  e instanceof TroupeError && e.category === category && pattern.test(e.message);

const orUndefined = (id: number | null) => id ?? undefined;

for (const name of FIXTURE_NAMES) {
  test(`${name}: ids and decodes equal the Rust tokenizers library's on every fixture string`, () => {
    const tok = readTokenizer(join(fixtureDir(name), 'tokenizer.json'));
    assert.ok(tok instanceof HfTokenizer);
    const expected = fixtureExpected(name);
    assert.ok(expected.cases.length >= 20);
    for (const c of expected.cases) {
      const label = JSON.stringify(c.text);
      assert.deepEqual(tok.encode(c.text), c.ids, `encode ${label}`);
      assert.equal(tok.decode(c.ids), c.decoded, `decode ${label}`);
      const { bos, eos } = expected.special;
      const framed = [bos as number, ...c.ids, eos as number];
      assert.equal(tok.decode(framed), c.framedDecoded, `decode <s> ${label} </s>`);
      assert.equal(tok.decode(framed, { skipSpecial: true }), c.framedDecodedSkip, `decode <s> ${label} </s>, skipping specials`);
    }
  });

  test(`${name}: vocabulary size and special tokens come from the files (encode adds none)`, () => {
    const tok = readTokenizer(join(fixtureDir(name), 'tokenizer.json'));
    const expected = fixtureExpected(name);
    assert.equal(tok.vocabSize, expected.vocabSize);
    assert.deepEqual(
      { bos: tok.special.bos, eos: tok.special.eos, pad: tok.special.pad, unk: tok.special.unk },
      { bos: orUndefined(expected.special.bos), eos: orUndefined(expected.special.eos), pad: orUndefined(expected.special.pad), unk: orUndefined(expected.special.unk) },
    );
    // The post-processor would put BOS in front (and EOS after, for some); Troupe's encode
    // must not (callers add BOS themselves).
    const { text, ids } = expected.withSpecialTokens;
    assert.equal(ids[0], expected.special.bos);
    const end = ids.at(-1) === expected.special.eos ? -1 : ids.length;
    assert.deepEqual(tok.encode(text), ids.slice(1, end));
  });

  test(`${name}: ids without a token (padded model rows) decode to no text; ids no model makes are refused`, () => {
    const tok = readTokenizer(join(fixtureDir(name), 'tokenizer.json'));
    const last = tok.vocabSize - 1;
    assert.equal(typeof tok.decode([last]), 'string');
    assert.equal(tok.decode([]), '');
    const { ids, decoded } = fixtureExpected(name).cases.find((c) => c.ids.length > 1)!;
    assert.equal(tok.decode([last + 1, ...ids, last + 100]), decoded, 'the ids past the vocabulary add nothing');
    assert.equal(tok.decode([last + 1]), '');
    assert.equal(tok.hasToken(last), true);
    assert.equal(tok.hasToken(last + 1), false);
    for (const id of [-1, 2.5]) {
      assert.throws(() => tok.decode([tok.special.bos as number, id]), isError('input', new RegExp(`token id ${id} is not a token id`)));
    }
  });

  test(`${name}: toTokenizerJson and tokenizerConfig give the original files back`, () => {
    const tok = readTokenizer(join(fixtureDir(name), 'tokenizer.json'));
    const json = tok.toTokenizerJson();
    assert.deepEqual(json, readFixtureJson(name, 'tokenizer.json'));
    assert.deepEqual(tok.tokenizerConfig?.(), readFixtureJson(name, 'tokenizer_config.json'));
    // A copy: changing it does not change the tokenizer.
    (json.model as { vocab: Record<string, number> }).vocab = {};
    assert.deepEqual(tok.toTokenizerJson(), readFixtureJson(name, 'tokenizer.json'));
  });
}

test('special tokens: AddedToken objects and strings in tokenizer_config; unk falls back to the model', () => {
  const json = readFixtureJson('metaspace-bpe', 'tokenizer.json');
  const asStrings = tokenizerFromJson(json, 'm/tokenizer.json', { bos_token: '</s>', eos_token: { content: '<s>' } });
  assert.deepEqual({ ...asStrings.special }, { pad: undefined, bos: 2, eos: 1, unk: 0 });
  const none = tokenizerFromJson(json, 'm/tokenizer.json');
  assert.deepEqual({ ...none.special }, { pad: undefined, bos: undefined, eos: undefined, unk: 0 });
  assert.equal(none.tokenizerConfig?.(), undefined);
  assert.throws(
    () => tokenizerFromJson(json, 'm/tokenizer.json', { bos_token: '<|begin_of_text|>' }),
    isError('checkpoint', /m\/tokenizer\.json: .*bos_token "<\|begin_of_text\|>".*not a token/),
  );
  assert.throws(() => tokenizerFromJson(json, 'm/tokenizer.json', { eos_token: '<|eot_id|>' }), isError('checkpoint', /eos_token "<\|eot_id\|>"/));
  // An unknown pad or unk token is only a hint: pad stays unknown, unk falls back to the model's.
  const lenient = tokenizerFromJson(json, 'm/tokenizer.json', { pad_token: '[PAD]', unk_token: '[UNK]' });
  assert.deepEqual({ ...lenient.special }, { pad: undefined, bos: undefined, eos: undefined, unk: 0 });
});

test('broken tokenizer.json files give checkpoint errors naming the file and the cause', () => {
  const base = readFixtureJson('bytelevel-bpe', 'tokenizer.json');
  const broken = (change: (json: Record<string, any>) => void) => {
    const json = structuredClone(base) as Record<string, any>;
    change(json);
    return () => tokenizerFromJson(json, 'b/tokenizer.json', { bos_token: '<s>' });
  };
  assert.throws(broken((j) => { j.pre_tokenizer = { type: 'NoSuchSplitter' }; }), isError('checkpoint', /b\/tokenizer\.json: the HF tokenizers package cannot build .*Unknown PreTokenizer type: NoSuchSplitter/));
  assert.throws(broken((j) => { delete j.model.vocab; }), isError('checkpoint', /b\/tokenizer\.json: the HF tokenizers package cannot build this tokenizer \(model "BPE"\)/));
  assert.throws(broken((j) => { j.model.type = 'Wordish'; }), isError('checkpoint', /b\/tokenizer\.json: model type "Wordish" is not one of BPE, Unigram, WordPiece, WordLevel/));
  assert.throws(broken((j) => { j.model = { type: 'BPE', vocab: {}, merges: [] }; j.added_tokens = []; }), isError('checkpoint', /vocabulary is empty/));
  // The pre-tokenizer regex is compiled when text is first split: the error still names the file.
  assert.throws(broken((j) => { j.pre_tokenizer.pretokenizers[0].pattern.Regex = '(unclosed'; }), isError('checkpoint', /b\/tokenizer\.json: .*regular expression/));
});

test('readTokenizer: unreadable tokenizer.json or tokenizer_config.json name the file', () => {
  const dir = testDir('troupe-hf-tokenizer-');
  mkdirSync(join(dir, 'a'));
  copyFileSync(join(fixtureDir('bytelevel-bpe'), 'tokenizer.json'), join(dir, 'a', 'tokenizer.json'));
  writeFileSync(join(dir, 'a', 'tokenizer_config.json'), '{"bos_token": ');
  assert.throws(() => readTokenizer(join(dir, 'a', 'tokenizer.json')), isError('checkpoint', /a\/tokenizer_config\.json: not valid JSON/));
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'b', 'tokenizer.json'), '{"model": {"type": "BPE"');
  assert.throws(() => readTokenizer(join(dir, 'b', 'tokenizer.json')), isError('checkpoint', /b\/tokenizer\.json: not valid JSON/));
  // Without a tokenizer_config.json the file still loads, with no BOS known.
  mkdirSync(join(dir, 'c'));
  copyFileSync(join(fixtureDir('bytelevel-bpe'), 'tokenizer.json'), join(dir, 'c', 'tokenizer.json'));
  const bare = readTokenizer(join(dir, 'c', 'tokenizer.json'));
  assert.equal(bare.special.bos, undefined);
  assert.deepEqual(bare.encode('U, R'), fixtureExpected('bytelevel-bpe').withSpecialTokens.ids.slice(1));
});

test('text outside the vocabulary: dropped by BPE without unk (as in Rust), refused by WordLevel without unk', () => {
  const json = structuredClone(readFixtureJson('metaspace-bpe', 'tokenizer.json')) as Record<string, any>;
  json.model.unk_token = null;
  json.model.byte_fallback = false;
  const bpe = tokenizerFromJson(json, 'm/tokenizer.json');
  assert.equal(bpe.special.unk, undefined);
  assert.deepEqual(bpe.encode('the 日'), bpe.encode('the '));

  // WordLevel with another pre-tokenizer than Troupe's per-character split: HfTokenizer, whose
  // unk comes from the model (the Rust library gives [0, 1, 2] and 'a b <unk>').
  const wordLevel = {
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: { type: 'WhitespaceSplit' }, post_processor: null, decoder: null,
    model: { type: 'WordLevel', vocab: { a: 0, b: 1, '<unk>': 2 }, unk_token: '<unk>' },
  };
  const words = tokenizerFromJson(wordLevel, 'w/tokenizer.json');
  assert.equal(words.special.unk, 2);
  assert.deepEqual(words.encode('a b c'), [0, 1, 2]);
  assert.equal(words.decode([0, 1, 2]), 'a b <unk>');
  const noUnk = tokenizerFromJson({ ...wordLevel, model: { ...wordLevel.model, unk_token: '<nope>' } }, 'w/tokenizer.json');
  assert.throws(() => noUnk.encode('a c'), isError('input', /text piece "c" is not in the tokenizer's vocabulary and the tokenizer has no unk token/));
});
