import type { Direction } from './types.js';

/** All moves in a fixed order; solvers break ties in this order, so plans are deterministic. */
export const DIRECTIONS: readonly Direction[] = ['U', 'D', 'L', 'R'];

/** Row and column change of each move (rows grow downwards). */
export const DIRECTION_DELTAS: Readonly<Record<Direction, readonly [number, number]>> = {
  U: [-1, 0],
  D: [1, 0],
  L: [0, -1],
  R: [0, 1],
};

/** The word a natural-format prompt uses for each move. */
export const DIRECTION_WORDS: Readonly<Record<Direction, string>> = {
  U: 'up',
  D: 'down',
  L: 'left',
  R: 'right',
};

/** The move that undoes each move (a step straight back, or the push a pull undoes). */
export const OPPOSITE_DIRECTION: Readonly<Record<Direction, Direction>> = { U: 'D', D: 'U', L: 'R', R: 'L' };
