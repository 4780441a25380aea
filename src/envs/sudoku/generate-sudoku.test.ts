import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { TroupeError } from '../../util/errors.js';
import { countSolutions, solveSudoku } from './count-solutions.js';
import { generateSudoku, MAX_HOLES } from './generate-sudoku.js';
import { sudokuTask } from './index.js';
import { puzzleSplit } from './puzzle-split.js';
import { emptyCount } from './sudoku-grid.js';

const defaults = sudokuTask.optionsSchema.parse({});

test('1,000 seeded train puzzles (and 200 eval ones) each have exactly one solution, the stored one', () => {
  const source = sudokuTask.createSource(defaults, 7);
  for (const [split, count] of [['train', 1000], ['eval', 200]] as const) {
    for (let i = 0; i < count; i++) {
      const { givens, solution } = source.make(i, split).puzzle;
      assert.equal(emptyCount(givens), defaults.holes, `${split}/${i} holes`);
      assert.equal(countSolutions(givens, 2), 1, `${split}/${i} unique`);
      assert.deepEqual(solveSudoku(givens), [...solution], `${split}/${i} solution`);
      assert.equal(puzzleSplit(givens), split, `${split}/${i} belongs to its split`);
    }
  }
});

test('generation is deterministic per seed and varies across seeds, indices and splits', () => {
  const a = sudokuTask.createSource(defaults, 7);
  const b = sudokuTask.createSource(defaults, 7);
  const c = sudokuTask.createSource(defaults, 8);
  const grids = (src: typeof a, split: 'train' | 'eval') =>
    Array.from({ length: 50 }, (_, i) => src.make(i, split).puzzle.givens.join(''));
  assert.deepEqual(grids(a, 'train'), grids(b, 'train'));
  assert.notDeepEqual(grids(a, 'train'), grids(c, 'train'));
  assert.ok(new Set(grids(a, 'train')).size > 40, 'indices give different puzzles');
  const train = new Set(grids(a, 'train'));
  assert.ok(grids(a, 'eval').every((g) => !train.has(g)), 'no eval puzzle is a train puzzle');
  assert.equal(a.make(3, 'eval').taskId, 'sudoku/eval/3');
});

test('every hole count from 1 to MAX_HOLES is reachable and unique', () => {
  const rng = new Rng(11);
  for (let holes = 1; holes <= MAX_HOLES; holes++) {
    for (let k = 0; k < 5; k++) {
      const { givens } = generateSudoku(rng, { holes });
      assert.equal(emptyCount(givens), holes);
      assert.equal(countSolutions(givens, 2), 1);
    }
  }
});

test('an out-of-range hole count is a config error naming the key', () => {
  for (const holes of [0, MAX_HOLES + 1, 2.5]) {
    assert.throws(
      () => generateSudoku(new Rng(1), { holes }),
      (e: unknown) => e instanceof TroupeError && e.category === 'config' && /holes/.test(e.message),
    );
  }
});
