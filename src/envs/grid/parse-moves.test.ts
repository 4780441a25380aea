import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMoves, parseMoves } from './parse-moves.js';

const compact = (text: string, maxMoves = 20) => parseMoves(text, { format: 'compact', maxMoves });
const natural = (text: string, maxMoves = 20) => parseMoves(text, { format: 'natural', maxMoves });

describe('parseMoves', () => {
  it('compact: the letters before the first newline, surrounding spaces tolerated', () => {
    assert.deepEqual(compact('RRDDL\nUUU'), { ok: true, action: ['R', 'R', 'D', 'D', 'L'] });
    assert.deepEqual(compact('  UD \n'), { ok: true, action: ['U', 'D'] });
  });

  it('compact: anything else is a failure with a reason', () => {
    const bad = compact('RRxD\n');
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.reason, /"x" at position 2/);
    assert.equal(compact('R R\n').ok, false);
    assert.equal(compact('rr\n').ok, false);
    assert.match(JSON.stringify(compact('\nRR')), /no moves/);
  });

  it('rejects more moves than the cap, naming both numbers', () => {
    const long = compact('RRRR', 3);
    assert.equal(long.ok, false);
    assert.match(long.ok ? '' : long.reason, /4 > max 3/);
    assert.equal(compact('RRR', 3).ok, true);
    assert.equal(natural('up, up, up, up', 3).ok, false);
  });

  it('natural: common LLM spellings', () => {
    const expected = { ok: true, action: ['U', 'R', 'R', 'D'] };
    for (const text of [
      'U, R, R, D',
      'up right right down',
      'Up, Right, Right, Down.',
      '[U, R, R, D]',
      '"U", "R", "R", "D"',
      'URRD',
      'I will go around the wall.\nAnswer: U, R, R, D',
      'Answer:\nU R R D',
      'Here is my plan:\n```\nU, R, R, D\n```\nGood luck!',
      'First I think.\nU -> R -> R -> D',
    ]) {
      assert.deepEqual(natural(text), expected, text);
    }
  });

  it('natural: prose where the moves should be is a failure naming the word', () => {
    const bad = natural('Answer: go up then right');
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.reason, /"go"/);
    assert.match(JSON.stringify(natural('Answer:')), /no moves/);
  });

  it('formatMoves writes what parseMoves reads', () => {
    assert.equal(formatMoves(['U', 'L'], 'compact'), 'UL\n');
    assert.equal(formatMoves(['U', 'L'], 'natural'), 'U, L');
    assert.deepEqual(natural(formatMoves(['D', 'R'], 'natural')), { ok: true, action: ['D', 'R'] });
  });
});
