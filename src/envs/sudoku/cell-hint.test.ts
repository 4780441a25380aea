import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cellHintLine, nextCell, readCellHint, unitsOf } from './cell-hint.js';
import { EMPTY } from './sudoku-grid.js';

const cells = (rows: string) => [...rows.replace(/\n/g, '')].map((ch) => (ch === '.' ? EMPTY : Number(ch)));

test('the named cell is the empty one with the fewest candidates, not the first empty one', () => {
  // (1,1) can take 1, 2 or 4; (1,4) only 1 or 4 (3 in its row and box, 2 in its column).
  const board = cells('..3.\n3...\n....\n...2');
  assert.equal(nextCell(board), 3);
  assert.equal(cellHintLine(board), 'CELL 14 ROW ..3. COL ...2 BOX 3...');
});

test('ties go to the first cell in reading order, and the units include the cell itself', () => {
  const board = cells('1.3.\n.4.2\n2.4.\n.3.1');
  assert.equal(cellHintLine(board), 'CELL 12 ROW 1.3. COL .4.3 BOX 1..4');
  assert.deepEqual(unitsOf(15), { row: [12, 13, 14, 15], col: [3, 7, 11, 15], box: [10, 11, 14, 15] });
});

test('a board with no completion can name a cell without candidates; a full board names none', () => {
  // (1,4) sees 1, 2, 3 in its row and 4 in its column: nothing fits.
  assert.equal(cellHintLine(cells('123.\n...4\n....\n....')), 'CELL 14 ROW 123. COL .4.. BOX 3..4');
  assert.equal(cellHintLine(cells('1234\n3412\n2143\n4321')), 'CELL -');
});

test('readCellHint finds the named cell in a prompt, and nothing without the line', () => {
  assert.equal(readCellHint('TOOL 1/8 M1\nCELL 24 ROW .34. COL ...2 BOX 3.4.\n....\nA:'), 7);
  assert.equal(readCellHint('TOOL 1/8 M1\nCELL -\n1234\nA:'), undefined);
  assert.equal(readCellHint('TOOL 1/8 M1\n1.3.\nA:'), undefined);
});
