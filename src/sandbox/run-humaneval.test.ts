import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHarnessChannel, runHumanEval } from './run-humaneval.js';
import { Sandbox } from './sandbox.js';
import type { HumanEvalProgram } from './types.js';
import { sandboxSkip } from './sandbox-skip.test-helper.js';

const sandbox = new Sandbox({ concurrency: 2, limits: { wallMs: 2000, cpuMs: 1000, memoryMb: 128 } });

// A HumanEval-shaped problem: 4 counted asserts (one in a loop), one constant assert.
const problem: Omit<HumanEvalProgram, 'completion'> = {
  prompt: 'def add(a, b):\n    """Return a + b."""\n',
  test: [
    'def check(candidate):',
    '    assert candidate(1, 2) == 3',
    '    assert candidate(-1, 1) == 0',
    '    for i in range(5):',
    '        assert candidate(i, i) == 2 * i',
    '    assert candidate(2, 2) == 4, "message"',
    '    assert True, "not counted"',
    '',
  ].join('\n'),
  entryPoint: 'add',
};

test('a correct completion passes every assert', { skip: sandboxSkip }, async () => {
  const r = await runHumanEval(sandbox, { ...problem, completion: '    return a + b\n' });
  assert.deepEqual([r.passed, r.total, r.allPassed, r.failure], [4, 4, true, undefined]);
});

test('a wrong completion gets partial credit per assert statement', { skip: sandboxSkip }, async () => {
  // a * b + a: (1,2) -> 3 holds; (-1,1) -> -2 fails; the loop fails at i = 2; (2,2) -> 6 fails.
  const r = await runHumanEval(sandbox, { ...problem, completion: '    return a * b + a\n' });
  assert.equal(r.total, 4);
  assert.equal(r.passed, 1);
  assert.equal(r.allPassed, false);
  assert.equal(r.failure, undefined, 'failed asserts are not a crash');
  assert.equal(r.run.reason, 'ok');
});

test('an exception inside an assert fails that assert only', { skip: sandboxSkip }, async () => {
  const r = await runHumanEval(sandbox, {
    ...problem,
    completion: '    if a < 0:\n        raise ValueError("neg")\n    return a + b\n',
  });
  assert.deepEqual([r.passed, r.total, r.allPassed], [3, 4, false]);
});

test('a syntax error in the completion fails at definition with every assert failed', { skip: sandboxSkip }, async () => {
  const r = await runHumanEval(sandbox, { ...problem, completion: '    return a +\n' });
  assert.deepEqual([r.passed, r.total, r.allPassed], [0, 4, false]);
  assert.equal(r.failure?.stage, 'definition');
  assert.match(r.failure?.message ?? '', /SyntaxError/);
});

test('an infinite loop times out and keeps the asserts that finished before it', { skip: sandboxSkip }, async () => {
  const r = await runHumanEval(
    sandbox,
    { ...problem, completion: '    while a < 0:\n        pass\n    return a + b\n' },
    { wallMs: 700 },
  );
  assert.equal(r.run.reason, 'timeout');
  assert.equal(r.failure?.stage, 'run');
  assert.deepEqual([r.passed, r.total, r.allPassed], [1, 4, false]);
});

test('a completion that exits early does not pass', { skip: sandboxSkip }, async () => {
  const r = await runHumanEval(sandbox, { ...problem, completion: '    import sys; sys.exit(0)\n' });
  assert.equal(r.allPassed, false);
  assert.equal(r.passed, 0);
});

test('a missing entry point is a check failure', { skip: sandboxSkip }, async () => {
  const r = await runHumanEval(sandbox, { ...problem, entryPoint: 'nope', completion: '    return a + b\n' });
  assert.equal(r.allPassed, false);
  assert.equal(r.failure?.stage, 'check');
  assert.match(r.failure?.message ?? '', /KeyError/);
});

test('parseHarnessChannel makes a failure sticky and drops a cut-off last line', () => {
  const o = parseHarnessChannel('T 3\nD ok\nA 0 1\nA 1 1\nA 1 0\nA 2 1\nE\nA 2');
  assert.equal(o.total, 3);
  assert.deepEqual([...o.asserts], [[0, true], [1, false], [2, true]]);
  assert.equal(o.ended, true);
  assert.equal(o.definition, 'ok');
});
