import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Fill, applyFills } from './apply-fills.js';
import { countSolutions } from './count-solutions.js';
import { OPEN_PUZZLE, PUZZLE, SOLUTION, SOLVING_FILLS, assertClose } from './sudoku-fixtures.test-helper.js';

function run(fills: Fill[], cells: readonly number[] = PUZZLE.givens, puzzle = PUZZLE) {
  return applyFills({ cells, givens: puzzle.givens, solution: puzzle.solution, fills });
}
const f = (row: number, col: number, digit: number): Fill => ({ row, col, digit });

test('the fixture puzzle is unique', () => {
  assert.equal(countSolutions(PUZZLE.givens), 1);
});

test('a correct fill costs 0.01 and earns 0.1 shaping', () => {
  const out = run([f(1, 2, 2)]);
  assertClose(out.reward, 0.09);
  assert.deepEqual(out.results.map((r) => r.verdict), ['ok']);
  assert.equal(out.cells[1], 2);
  assert.equal(out.empty, 7);
  assert.equal(out.solved, false);
});

test('a conflicting fill is -0.1, not applied, and names its units', () => {
  // (1,2)=4: column 2 and the top-left box already hold the 4 at (2,2).
  const out = run([f(1, 2, 4)]);
  assertClose(out.reward, -0.1);
  assert.equal(out.results[0]?.verdict, 'conflict');
  assert.deepEqual(out.results[0]?.units, ['col', 'box']);
  assert.deepEqual(out.cells, [...PUZZLE.givens]);
  // (1,2)=3 repeats the 3 at (1,3) in row 1 and the 3 at (4,2) in column 2; box 1 has none.
  assert.deepEqual(run([f(1, 2, 3)]).results[0]?.units, ['row', 'col']);
});

test('a given cell and out-of-range values are -0.1 each and change nothing', () => {
  const out = run([f(1, 1, 2), f(0, 2, 2), f(1, 5, 2), f(1, 2, 5), f(1, 2, 0)]);
  assertClose(out.reward, -0.5);
  assert.deepEqual(out.results.map((r) => r.verdict), ['given', 'range', 'range', 'range', 'range']);
  assert.deepEqual(out.cells, [...PUZZLE.givens]);
});

test('fills are judged in order against the board the earlier ones left', () => {
  // (1,2)=2 applied, then (3,2)=2 repeats it in column 2.
  const out = run([f(1, 2, 2), f(3, 2, 2)]);
  assert.deepEqual(out.results.map((r) => r.verdict), ['ok', 'conflict']);
  assertClose(out.reward, -0.01 + 0.1 - 0.1);
  // Writing the same digit again is legal, costs 0.01 and earns no new shaping.
  assertClose(run([f(1, 2, 2), f(1, 2, 2)]).reward, -0.02 + 0.1);
});

test('the solving action earns 8 x (0.1 - 0.01) + 1', () => {
  const out = run(SOLVING_FILLS);
  assertClose(out.reward, 8 * 0.09 + 1);
  assert.equal(out.solved, true);
  assert.equal(out.empty, 0);
  assert.deepEqual(out.cells, SOLUTION);
  // Re-submitting on the solved board: no second bonus, no shaping, just the fill costs.
  const again = run(SOLVING_FILLS, out.cells);
  assert.equal(again.solved, false);
  assertClose(again.reward, -0.08);
});

test('shaping is a potential: wrong-but-legal, fixed, then broken again', () => {
  // OPEN_PUZZLE gives only row 1; the solution has 3 at (2,1) but 4 is legal there.
  const wrong = run([f(2, 1, 4)], OPEN_PUZZLE.givens, OPEN_PUZZLE);
  assert.equal(wrong.results[0]?.verdict, 'ok');
  // A wrong digit counts against the potential: -0.01 - 0.1, below a rejected fill's -0.1.
  assertClose(wrong.reward, -0.11);
  const rejected = run([f(1, 1, 4)], OPEN_PUZZLE.givens, OPEN_PUZZLE);
  assert.equal(rejected.results[0]?.verdict, 'given');
  assert.ok(wrong.reward < rejected.reward);
  const fixed = run([f(2, 1, 3)], wrong.cells, OPEN_PUZZLE);
  assertClose(fixed.reward, 0.19);
  const broken = run([f(2, 1, 4)], fixed.cells, OPEN_PUZZLE);
  assertClose(broken.reward, -0.21);
  // Wrong, fixed, broken: the shaping terms sum to the potential's change (one wrong cell).
  assertClose(wrong.reward + fixed.reward + broken.reward, 3 * -0.01 - 0.1);
});

test('applyFills never mutates its input board', () => {
  const cells = [...PUZZLE.givens];
  run(SOLVING_FILLS, cells);
  assert.deepEqual(cells, [...PUZZLE.givens]);
});
