import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../../util/rng.js';
import { bfsDistances, UNREACHABLE } from './bfs-distances.js';
import { cellAt, neighbor } from './grid-shape.js';
import { readBoardRows, readMaxMoves, readPromptFormat } from './read-board.js';
import { createScriptedMover } from './scripted-mover.js';
import type { Direction } from './types.js';

const shape = { height: 3, width: 4 };

describe('grid geometry', () => {
  it('neighbor moves by row/column and returns -1 off the grid', () => {
    const cell = cellAt(shape, 1, 2);
    assert.equal(neighbor(shape, cell, 'U'), cellAt(shape, 0, 2));
    assert.equal(neighbor(shape, cell, 'D'), cellAt(shape, 2, 2));
    assert.equal(neighbor(shape, cell, 'L'), cellAt(shape, 1, 1));
    assert.equal(neighbor(shape, cell, 'R'), cellAt(shape, 1, 3));
    assert.equal(neighbor(shape, cellAt(shape, 1, 3), 'R'), -1, 'no wrap to the next row');
    assert.equal(neighbor(shape, cellAt(shape, 0, 0), 'U'), -1);
  });

  it('bfsDistances: move counts around walls, UNREACHABLE behind them, several sources', () => {
    // ..#.
    // ..#.
    // ....
    const walls = new Set([cellAt(shape, 0, 2), cellAt(shape, 1, 2)]);
    const dist = bfsDistances({ shape, passable: (c) => !walls.has(c), sources: [cellAt(shape, 0, 0)] });
    assert.equal(dist[cellAt(shape, 0, 3)], 7);
    assert.equal(dist[cellAt(shape, 2, 3)], 5);
    assert.equal(dist[cellAt(shape, 0, 2)], UNREACHABLE);
    const multi = bfsDistances({ shape, passable: (c) => !walls.has(c), sources: [cellAt(shape, 0, 0), cellAt(shape, 0, 3)] });
    assert.equal(multi[cellAt(shape, 2, 3)], 2);
  });
});

describe('reading prompts back', () => {
  const prompt = ['PLAN 2/4 M12', '#..G', 'P..#', 'TOOL RR', 'SIM END 1,2 HIT0 R=0.18', 'A:'].join('\n');

  it('finds the board rows, the format and the move cap', () => {
    assert.deepEqual(readBoardRows(prompt, '#.PG'), ['#..G', 'P..#']);
    assert.equal(readPromptFormat(prompt), 'compact');
    assert.equal(readMaxMoves(prompt), 12);
    assert.equal(readPromptFormat('Board...\nAnswer:'), 'natural');
    assert.equal(readMaxMoves('Write at most 7 moves (U = up)'), 7);
    assert.equal(readBoardRows('no board\n.\nhere', '#.'), undefined);
  });
});

describe('createScriptedMover', () => {
  // A one-dimensional toy: position on a line, the goal at 5, optimal plan = that many R.
  const game = {
    read: (prompt: string) => Number(/pos (\d+)/.exec(prompt)?.[1] ?? NaN),
    solve: (pos: number): Direction[] => Array<Direction>(Math.max(0, 5 - pos)).fill('R'),
    apply: (pos: number, dir: Direction) => (dir === 'R' ? pos + 1 : dir === 'L' ? pos - 1 : pos),
    solved: (pos: number) => pos === 5,
    program: (_prompt: string, steps: string) => `print(${JSON.stringify(steps)})`,
  };
  const mover = createScriptedMover(game);

  it('skill 1 plays the optimal plan, capped by the prompt, in the prompt format', () => {
    const rng = new Rng(1);
    assert.equal(mover({ role: 'agent', prompt: 'AGENT 1/4 M20\npos 1\nA:', skill: 1, rng }), 'RRRR\n');
    assert.equal(mover({ role: 'agent', prompt: 'AGENT 1/4 M2\npos 1\nA:', skill: 1, rng }), 'RR\n');
    assert.equal(mover({ role: 'agent', prompt: 'pos 3\nWrite at most 9 moves\nAnswer:', skill: 1, rng }), 'R, R');
  });

  it('skill 0 plays random moves of the same length; the same rng seed replays them', () => {
    const texts = Array.from({ length: 20 }, (_, i) =>
      mover({ role: 'agent', prompt: 'AGENT 1/4 M20\npos 0\nA:', skill: 0, rng: new Rng(i) }),
    );
    assert.ok(texts.every((t) => /^[UDLR]{5}\n$/.test(t)));
    assert.ok(texts.some((t) => t !== 'RRRRR\n'));
    assert.ok(new Set(texts).size > 10);
    assert.equal(mover({ role: 'agent', prompt: 'AGENT 1/4 M20\npos 0\nA:', skill: 0, rng: new Rng(3) }), texts[3]);
  });
});
