// The 4-level reward against hand-computed values, through the real sandbox analysis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedSandbox } from '../code/shared-sandbox.js';
import { coopReward, coopRewardWeightsSchema } from './coop-reward.js';
import { evaluateCoop } from './evaluate-coop.js';
import { sandboxSkip } from '../../sandbox/sandbox-skip.test-helper.js';

const problem = {
  taskId: 'hand/0',
  prompt: 'def add_twice(a: int, b: int) -> int:\n    """Return a + 2 * b."""\n',
  test: 'def check(candidate):\n    assert candidate(1, 2) == 5\n    assert candidate(0, 0) == 0\n    assert candidate(3, -1) == 1\n    assert candidate(2, 5) == 12\n    assert True\n',
  entryPoint: 'add_twice',
};
const AUX = 'def aux(x):\n    return 2 * x\n';
const weights = coopRewardWeightsSchema.parse({});

// [case, aux, main, structure, syntax, tests, cooperation, stoppedAt]
const table: Array<[string, string, string, number, number, number, number, string?]> = [
  ['nothing', '', '', 0, 0, 0, 0, 'structure'],
  ['aux only', AUX, '', 0.4, 0, 0, 0, 'structure'],
  ['main without return', AUX, 'def add_twice(a, b):\n    print(a)\n', 0.4, 0, 0, 0, 'structure'],
  ['main unparseable', AUX, 'def add_twice(a, b) return a\n', 0.4, 0, 0, 0, 'structure'],
  ['parses, does not compile', `${AUX}return 1\n`, 'def add_twice(a, b):\n    return a + aux(b)\n', 1.0, 0, 0, 0, 'syntax'],
  ['full cooperation', AUX, 'def add_twice(a, b):\n    return a + aux(b)\n', 1.0, 0.5, 1.0, 1.5],
  ['aux without return, main alone', 'def aux(x):\n    y = 2 * x\n', 'def add_twice(a, b):\n    return a + 2 * b\n', 0.6, 0.5, 1.0, 0],
  ['main ignores aux', AUX, 'def add_twice(a, b):\n    return a + 2 * b\n', 1.0, 0.5, 1.0, 0],
  ['thin wrapper', 'def aux(a, b):\n    return a + 2 * b\n', 'def add_twice(a, b):\n    """Doc."""\n    return aux(a, b)\n', 1.0, 0.5, 1.0, 0.5],
  ['discarded result', AUX, 'def add_twice(a, b):\n    aux(b)\n    return a + 2 * b\n', 1.0, 0.5, 1.0, 1.0],
  ['3 of 4 asserts', AUX, 'def add_twice(a, b):\n    return a + aux(b) if b > 0 else 0\n', 1.0, 0.5, 0.75, 1.5],
  ['no assert passes: no cooperation', AUX, 'def add_twice(a, b):\n    return a + aux(b) - 1000\n', 1.0, 0.5, 0, 0],
];

test('4-level reward: hand-computed table (structure, syntax, tests, cooperation, thin wrapper, discarded result)', { skip: sandboxSkip }, async () => {
  const results = await Promise.all(table.map(([, aux, main]) => evaluateCoop(sharedSandbox(), problem, aux, main)));
  table.forEach(([name, , , structure, syntax, tests, cooperation, stoppedAt], i) => {
    const ev = results[i]!;
    assert.ok(ev.analysis, `${name}: analysis ran`);
    const r = coopReward(ev.analysis, ev.tests, weights);
    const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;
    assert.ok(
      close(r.structure, structure) && close(r.syntax, syntax) && close(r.tests, tests) && close(r.cooperation, cooperation),
      `${name}: got ${JSON.stringify(r)}`,
    );
    assert.ok(close(r.total, structure + syntax + tests + cooperation), name);
    assert.equal(r.stoppedAt, stoppedAt, name);
  });
  const full = results[5]!;
  assert.deepEqual([full.tests.passed, full.tests.total, full.tests.allPassed], [4, 4, true], 'constant asserts are not counted');
  assert.deepEqual(results[10]!.tests.failing, ['assert candidate(3, -1) == 1'], 'failing asserts are named for feedback');
});

test('reward weights are options: each level scales with its own weight', () => {
  const analysis = { aux_defined: true, main_defined: true, syntax_ok: true, calls_aux: true, thin_wrapper: false, discarded: true };
  const w = coopRewardWeightsSchema.parse({ aux_defined: 1, main_defined: 2, syntax: 3, tests: 4, calls_aux: 5, not_thin_wrapper: 6, discarded_result: -7 });
  const r = coopReward(analysis, { passed: 1, total: 2 }, w);
  assert.deepEqual([r.structure, r.syntax, r.tests, r.cooperation], [3, 3, 2, 4]);
  assert.equal(coopReward({ ...analysis, thin_wrapper: true, discarded: false }, { passed: 2, total: 2 }, weights).cooperation, 0.5);
  assert.equal(coopReward(analysis, { passed: 0, total: 2 }, weights).cooperation, 0, 'no passed test, no cooperation');
  assert.equal(coopReward({ ...analysis, aux_defined: false }, { passed: 2, total: 2 }, weights).cooperation, 0, 'no aux, no cooperation');
});
