import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyExit, looksLikeOutOfMemory, type RawExit } from './classify-exit.js';
import { CappedOutput } from './capped-output.js';
import { toPythonLiteral } from './to-python-literal.js';

const base: RawExit = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  outputExceeded: false,
  cpuMs: 10,
  cpuLimitMs: 1000,
  stderrTail: '',
};

test('classifyExit maps raw facts to one reason, with Troupe kills first', () => {
  const cases: Array<[Partial<RawExit>, string]> = [
    [{}, 'ok'],
    [{ exitCode: 1, stderrTail: 'Traceback\nValueError: x\n' }, 'error'],
    [{ exitCode: 2 }, 'error'],
    [{ exitCode: null, signal: 9, timedOut: true }, 'timeout'],
    [{ exitCode: null, signal: 24 }, 'timeout'],
    [{ exitCode: null, signal: 9, cpuMs: 2000 }, 'timeout'],
    [{ exitCode: null, signal: 9, cpuMs: 10 }, 'killed'],
    [{ exitCode: null, signal: 11 }, 'killed'],
    [{ exitCode: 1, stderrTail: 'Traceback (most recent call last):\n  File "x"\nMemoryError\n' }, 'memory'],
    [{ exitCode: null, signal: 6, stderrTail: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory' }, 'memory'],
    [{ exitCode: null, signal: 9, outputExceeded: true, timedOut: true }, 'output-limit'],
    [{ exitCode: 0, stderrTail: 'MemoryError\n' }, 'ok'],
  ];
  for (const [patch, expected] of cases) {
    assert.equal(classifyExit({ ...base, ...patch }), expected, JSON.stringify(patch));
  }
});

test('looksLikeOutOfMemory does not fire on ordinary errors that mention memory', () => {
  assert.equal(looksLikeOutOfMemory('NameError: name MemoryErrorX is not defined'), false);
  assert.equal(looksLikeOutOfMemory('RangeError: Array buffer allocation failed'), true);
});

test('CappedOutput keeps exactly the cap, flags the overflow once, and keeps a tail', () => {
  const out = new CappedOutput(10, 4);
  assert.equal(out.push(Buffer.from('abcdef')), false);
  assert.equal(out.push(Buffer.from('ghijkl')), true);
  assert.equal(out.push(Buffer.from('mn')), false, 'reports crossing the cap only once');
  assert.equal(out.text(), 'abcdefghij');
  assert.equal(out.exceeded, true);
  assert.equal(out.tail(), 'klmn');
});

test('toPythonLiteral writes Python syntax for config data', () => {
  assert.equal(
    toPythonLiteral({ a: [1, 'x"\n'], b: null, c: true, d: { e: false } }),
    '{"a": [1, "x\\"\\n"], "b": None, "c": True, "d": {"e": False}}',
  );
  assert.throws(() => toPythonLiteral(Number.NaN), /no Python literal/);
});
