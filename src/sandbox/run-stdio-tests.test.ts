import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outputsMatch, runStdioTests } from './run-stdio-tests.js';
import { Sandbox } from './sandbox.js';
import { sandboxSkip } from './sandbox-skip.test-helper.js';

const sandbox = new Sandbox({ concurrency: 2, limits: { wallMs: 2000, cpuMs: 1000, memoryMb: 128 } });

test('outputsMatch ignores line endings and trailing whitespace only', () => {
  assert.equal(outputsMatch('1 2\r\n3  \n\n', '1 2\n3'), true);
  assert.equal(outputsMatch('1 2\n3', '1  2\n3'), false);
  assert.equal(outputsMatch('', '0'), false);
  assert.equal(outputsMatch(' 3', '3'), false);
});

test('a correct program passes every case, a wrong one fails the cases it gets wrong', { skip: sandboxSkip }, async () => {
  const tests = [
    { input: '2 3\n', output: '5\n' },
    { input: '10 -4\n', output: '6' },
    { input: '0 0\n', output: '0\n' },
  ];
  const right = await runStdioTests(sandbox, { language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)', tests });
  assert.equal(right.passed, 3);
  assert.equal(right.total, 3);
  // Wrong on negative numbers only.
  const wrong = await runStdioTests(sandbox, {
    language: 'python',
    code: 'a, b = map(int, input().split())\nprint(abs(a) + abs(b))',
    tests,
  });
  assert.equal(wrong.passed, 2);
  assert.deepEqual(
    wrong.tests.map((t) => t.passed),
    [true, false, true],
  );
  assert.equal(wrong.tests[1]?.run.reason, 'ok', 'a wrong answer is not a crash');
  assert.equal(wrong.tests[1]?.run.stdout, '14\n');
});

test('a program that prints the answer and then crashes does not pass', { skip: sandboxSkip }, async () => {
  const report = await runStdioTests(sandbox, {
    language: 'javascript',
    code: 'console.log(5); throw new Error("late")',
    tests: [{ input: '', output: '5' }],
  });
  assert.equal(report.passed, 0);
  assert.equal(report.tests[0]?.run.reason, 'error');
});
