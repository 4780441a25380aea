#!/usr/bin/env python3
"""Writes the tokenizer fixtures of src/engine/tokenizer/fixtures/ (dev-only; tests never run it).

Two small tokenizers trained with the reference Rust implementation (the Python `tokenizers`
package), laid out like the files real models ship, plus the ids and texts that
implementation gives for a set of strings. Troupe's HfTokenizer (JavaScript) must reproduce
them exactly (src/engine/tokenizer/hf-tokenizer.test.ts).

  bytelevel-bpe/    GPT-2 / Llama-3 style: a Split pre-tokenizer with Llama-3's regex, then
                    ByteLevel (no regex of its own), a BPE model over the 256 byte symbols,
                    the special tokens added after the vocabulary (like Llama-3's), a
                    Sequence[ByteLevel, TemplateProcessing] post-processor and a ByteLevel
                    decoder.
  metaspace-bpe/    SentencePiece / Llama-2 style: a Metaspace pre-tokenizer (prepend "first",
                    no split), a BPE model with byte fallback (<0x00>..<0xFF> at ids 3..258),
                    <unk> <s> </s> at ids 0..2, a TemplateProcessing post-processor and the
                    Replace/ByteFallback/Fuse/Strip decoder chain.
  metaspace-unigram/ SentencePiece Unigram (ALBERT / T5 style): Metaspace pre-tokenizer
                    (prepend "always", split on words) and decoder, a Unigram model whose
                    <unk> takes every character it never saw (CJK, emoji).

Each folder holds tokenizer.json, tokenizer_config.json (special tokens, chat_template) and
expected.json: for every string, the ids of encode(text, add_special_tokens=False), the
decode of those ids, and the decodes of [bos] + ids + [eos] with and without
skip_special_tokens.

Usage (PyPI is not reachable here; the wheel is on disk):
  pip install --target /tmp/tok /opt/pypi/files/tokenizers-0.22.2-*.whl
  PYTHONPATH=/tmp/tok python3 scripts/make-tokenizer-fixtures.py
The output is deterministic for a given tokenizers version; the version is recorded in each
expected.json.
"""

import json
import os

import tokenizers
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src', 'engine', 'tokenizer', 'fixtures')

# The training text: a few paragraphs written for this script, plus Plan-Path style prompts,
# so the merges cover English words, board rows and move lists.
TRAINING_TEXT = """
Troupe trains small teams of language model agents on a plain processor. Each agent reads a
prompt, writes an answer, and the team is rewarded when the puzzle is solved. The tool agent
proposes moves; the plan agent commits the moves that are really played.
Puzzle: move P to G on the grid below.
Legend: # wall, . free cell, P you, G goal.
Each move costs 0.01; a move into a wall or off the grid fails (-0.1) and you stay put.
Reaching G gives +1, and +0.5 more if your whole path is as short as possible.
Turn 1 of 4. The board now (row 1 at the top):
#.#G.
.#...
.....
.P...
.###.
Rows are numbered 1 to 5 from the top, columns 1 to 5 from the left.
Write at most 20 moves (U = up, D = down, L = left, R = right) as a list like: U, R, R, D
Answer: U, U, R, R, U
TOOL 1/4 M20
PLAN 1/4 M20
A: UURRU
The weather was mild, so the walkers left the village early and reached the ridge by noon.
They shared bread, cheese and apples, then followed the river back before the evening rain.
Numbers such as 12, 345 and 6789 appear in tables; prices like 3.50 or 1,200 appear in shops.
def solve(board):
    for row in board:
        print(row)
    return None
"""

# The strings whose encodings are recorded: ASCII, digits, runs of spaces, newlines, tabs,
# accents, CJK, emoji, special-token text and the Plan-Path prompts.
CASES = [
    'Hello, world!',
    'The quick brown fox jumps over the lazy dog.',
    'digits 0123456789, 3.14159 and 1,000,000',
    'two  spaces,   three and    four',
    '  leading and trailing  ',
    'line one\nline two\n\nline four\r\nwindows',
    '\ttab\tseparated\tvalues\t',
    'café naïve résumé Zürich façade',
    'MiXeD CaSe ÀÉÎ straße',
    '日本語のテキスト と 中文',
    'emoji 🙂👍🏽 and 🧪!',
    "don't I'll we're THEY'RE you've",
    'a </s> b <s>c',
    "```python\nprint('hi')\n```",
    'x' * 40,
    '\u00a0no-break\u3000wide space',
    ' ',
    '',
    'U, R, R, D',
    'TOOL 1/4 M20\n#.#G.\n.#...\n.....\n.P...\n.###.\nA:',
    'PLAN 1/4 M20\n#.#G.\n.#...\n.....\n.P...\n.###.\nTOOL -\nA:',
    'Puzzle: move P to G on the grid below.\nLegend: # wall, . free cell, P you, G goal.\n\n'
    'Turn 1 of 4. The board now (row 1 at the top):\n\n#.#G.\n.#...\n.....\n.P...\n.###.\n\n'
    'Write at most 20 moves (U = up, D = down, L = left, R = right) as a list like: U, R, R, D\nAnswer:',
]

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"
)

# Llama-3's pre-tokenizer pattern (a fact of that tokenizer, in Oniguruma syntax).
LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def added_token(content):
    return {'content': content, 'lstrip': False, 'normalized': False, 'rstrip': False, 'single_word': False, 'special': True}


def byte_level_bpe():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_SPLIT), behavior='isolated', invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=340, min_frequency=2, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([TRAINING_TEXT], trainer)
    # Like Llama-3: the special tokens come after the learned vocabulary.
    tok.add_special_tokens(['<s>', '</s>', '<pad>'])
    bos, eos = tok.token_to_id('<s>'), tok.token_to_id('</s>')
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single='<s> $A', pair='<s> $A <s> $B:1', special_tokens=[('<s>', bos)]),
    ])
    config = {
        'added_tokens_decoder': {str(tok.token_to_id(t)): added_token(t) for t in ['<s>', '</s>', '<pad>']},
        'bos_token': '<s>',
        'chat_template': CHAT_TEMPLATE,
        'clean_up_tokenization_spaces': False,
        'eos_token': '</s>',
        'model_input_names': ['input_ids', 'attention_mask'],
        'model_max_length': 4096,
        'pad_token': '<pad>',
        'tokenizer_class': 'PreTrainedTokenizerFast',
    }
    return tok, config


def metaspace_bpe():
    # Trained with split words (as SentencePiece trains), saved without splitting (as Llama-2
    # files converted by transformers are): no merge crosses a word start, so both agree.
    trainer_tok = Tokenizer(models.BPE(unk_token='<unk>', byte_fallback=True, fuse_unk=True))
    trainer_tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement='▁', prepend_scheme='first', split=True)
    trainer = trainers.BpeTrainer(vocab_size=300, min_frequency=2, show_progress=False, special_tokens=['<unk>', '<s>', '</s>'])
    trainer_tok.train_from_iterator([TRAINING_TEXT], trainer)
    trained = json.loads(trainer_tok.to_str())

    specials = ['<unk>', '<s>', '</s>']
    byte_tokens = [f'<0x{b:02X}>' for b in range(256)]
    vocab = {t: i for i, t in enumerate(specials + byte_tokens)}
    for token, _ in sorted(trained['model']['vocab'].items(), key=lambda kv: kv[1]):
        if token not in vocab:
            vocab[token] = len(vocab)
    trained['model']['vocab'] = vocab
    trained['added_tokens'] = [dict(added_token(t), id=i) for i, t in enumerate(specials)]
    trained['normalizer'] = None
    trained['pre_tokenizer'] = {'type': 'Metaspace', 'replacement': '▁', 'prepend_scheme': 'first', 'split': False}
    trained['post_processor'] = {
        'type': 'TemplateProcessing',
        'single': [{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}],
        'pair': [{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}},
                 {'SpecialToken': {'id': '<s>', 'type_id': 1}}, {'Sequence': {'id': 'B', 'type_id': 1}}],
        'special_tokens': {'<s>': {'id': '<s>', 'ids': [1], 'tokens': ['<s>']}},
    }
    trained['decoder'] = {'type': 'Sequence', 'decoders': [
        {'type': 'Replace', 'pattern': {'String': '▁'}, 'content': ' '},
        {'type': 'ByteFallback'},
        {'type': 'Fuse'},
        {'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0},
    ]}
    tok = Tokenizer.from_str(json.dumps(trained))
    # Old-style configs (Llama-2's) give the special tokens as AddedToken objects.
    config = {
        'add_bos_token': True,
        'add_eos_token': False,
        'bos_token': dict(added_token('<s>'), __type='AddedToken'),
        'chat_template': CHAT_TEMPLATE,
        'clean_up_tokenization_spaces': False,
        'eos_token': dict(added_token('</s>'), __type='AddedToken'),
        'legacy': False,
        'model_max_length': 4096,
        'pad_token': None,
        'tokenizer_class': 'LlamaTokenizer',
        'unk_token': dict(added_token('<unk>'), __type='AddedToken'),
    }
    return tok, config


def metaspace_unigram():
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement='▁', prepend_scheme='always', split=True)
    tok.decoder = decoders.Metaspace(replacement='▁', prepend_scheme='always', split=True)
    trainer = trainers.UnigramTrainer(vocab_size=220, show_progress=False, special_tokens=['<pad>', '<unk>', '<s>', '</s>'], unk_token='<unk>')
    tok.train_from_iterator([TRAINING_TEXT], trainer)
    tok.post_processor = processors.TemplateProcessing(single='<s> $A </s>', pair='<s> $A </s> $B:1 </s>:1',
                                                       special_tokens=[('<s>', tok.token_to_id('<s>')), ('</s>', tok.token_to_id('</s>'))])
    config = {
        'bos_token': '<s>',
        'chat_template': CHAT_TEMPLATE,
        'clean_up_tokenization_spaces': False,
        'eos_token': '</s>',
        'model_max_length': 512,
        'pad_token': '<pad>',
        'tokenizer_class': 'PreTrainedTokenizerFast',
        'unk_token': '<unk>',
    }
    return tok, config


def write(name, tok, config):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    tok.save(os.path.join(folder, 'tokenizer.json'), pretty=True)
    with open(os.path.join(folder, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
        json.dump(config, f, indent=2, ensure_ascii=False)
        f.write('\n')
    bos, eos = tok.token_to_id('<s>'), tok.token_to_id('</s>')
    cases = []
    for text in CASES:
        ids = tok.encode(text, add_special_tokens=False).ids
        framed = [bos] + ids + [eos]
        cases.append({
            'text': text,
            'ids': ids,
            'decoded': tok.decode(ids, skip_special_tokens=False),
            'framedDecoded': tok.decode(framed, skip_special_tokens=False),
            'framedDecodedSkip': tok.decode(framed, skip_special_tokens=True),
        })
    expected = {
        'generator': f'scripts/make-tokenizer-fixtures.py with tokenizers {tokenizers.__version__}',
        'vocabSize': tok.get_vocab_size(with_added_tokens=True),
        'special': {'bos': bos, 'eos': eos, 'pad': tok.token_to_id('<pad>'), 'unk': tok.token_to_id('<unk>')},
        'withSpecialTokens': {'text': 'U, R', 'ids': tok.encode('U, R', add_special_tokens=True).ids},
        'cases': cases,
    }
    # One case per line: small, and a regenerated file diffs case by case.
    head = json.dumps({k: v for k, v in expected.items() if k != 'cases'}, ensure_ascii=False)[:-1]
    lines = ',\n  '.join(json.dumps(case, ensure_ascii=False) for case in cases)
    with open(os.path.join(folder, 'expected.json'), 'w', encoding='utf-8') as f:
        f.write(f'{head},\n "cases": [\n  {lines}\n ]\n}}\n')
    print(f'{folder}: vocab {expected["vocabSize"]}, {len(cases)} cases')


if __name__ == '__main__':
    write('bytelevel-bpe', *byte_level_bpe())
    write('metaspace-bpe', *metaspace_bpe())
    write('metaspace-unigram', *metaspace_unigram())
