import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { UnknownCharacterReport, unknownCharacters } from './unknown-characters.js';

test('unknownCharacters lists each character the tokenizer reads as <unk>, once, in order', () => {
  const standard = CharTokenizer.standard();
  assert.deepEqual(unknownCharacters(standard, 'T7 V2 H tool+2\nplan A:'), ['t', 'o', 'l', 'p', 'a', 'n']);
  assert.deepEqual(unknownCharacters(standard, 'T7 V2 H TOOL+2\nPLAN A:'), []);
  assert.deepEqual(unknownCharacters(CharTokenizer.ascii(), 'tool plan'), []);
});

test('the report warns once per role, naming the role and its characters', () => {
  const lines: string[] = [];
  const report = new UnknownCharacterReport(CharTokenizer.standard(), (line) => lines.push(line));
  report.check([
    { role: 'tool', prompt: 'T7 V0\ntool A:' },
    { role: 'plan', prompt: 'T7 V0\nPLAN A:' },
    { role: 'tool', prompt: 'T7 V0\ntoolz A:' },
  ]);
  report.check([{ role: 'tool', prompt: 'x' }, { role: 'plan', prompt: 'plan' }]);
  assert.equal(lines.length, 2, lines.join('\n'));
  assert.match(lines[0]!, /^warning: role "tool"'s prompts contain characters the model's tokenizer reads as <unk>: "t" "o" "l" "z"; .*model.tokenizer: ascii$/);
  assert.match(lines[1]!, /^warning: role "plan"'s prompts .*: "p" "l" "a" "n";/);
});
