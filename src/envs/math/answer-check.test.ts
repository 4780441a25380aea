import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answersEqual, extractBoxed, normalizeAnswer } from './answer-check.js';

// [answer, reference, same?]
const table: Array<[string, string, boolean]> = [
  ['42', '42', true],
  ['42', '43', false],
  ['-7', '−7'.replace('−', '-'), true],
  ['1/2', '0.5', true],
  ['\\frac{1}{2}', '0.5', true],
  ['\\dfrac{1}{2}', '1/2', true],
  ['\\tfrac12', '2/4', true],
  ['\\frac{3}{2}', '1.5', true],
  ['\\frac{3}{2}', '1.4', false],
  ['-\\frac{1}{3}', '-1/3', true],
  ['\\frac{-1}{3}', '-1/3', true],
  ['0.3333333333333333', '1/3', true],
  ['0.3333', '1/3', false],
  ['$\\boxed{12}$', '12', true],
  ['The answer is \\boxed{\\frac{5}{6}}.', '5/6', true],
  ['\\left( \\frac{1}{2} \\right)', '0.5', true],
  ['1,000', '1000', true],
  ['1,234,567', '1234567', true],
  ['12 apples', '12', true],
  ['5\\text{ cm}', '5', true],
  ['x = 4', '4', true],
  ['4.0', '4', true],
  ['04', '4', true],
  ['50\\%', '50', true],
  ['90^\\circ', '90', true],
  ['(1, 2)', '(1,2)', true],
  ['(1, 2)', '(2, 1)', false],
  ['\\sqrt{2}', '\\sqrt{2}', true],
  ['\\sqrt{2}', '\\sqrt{3}', false],
  ['', '0', false],
  ['abc', '0', false],
];

test('answer checker table: equivalent forms match, different values do not', () => {
  for (const [a, b, same] of table) {
    assert.equal(answersEqual(a, b), same, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    assert.equal(answersEqual(b, a), same, `symmetric: ${JSON.stringify(b)} vs ${JSON.stringify(a)}`);
  }
});

test('extractBoxed takes the last box with balanced braces', () => {
  assert.equal(extractBoxed('first \\boxed{1} then \\boxed{\\frac{2}{3}} done'), '\\frac{2}{3}');
  assert.equal(extractBoxed('no box here'), undefined);
  assert.equal(extractBoxed('\\boxed{unclosed'), undefined);
  assert.equal(normalizeAnswer('$\\boxed{ 1,000 }$'), '1000');
});
