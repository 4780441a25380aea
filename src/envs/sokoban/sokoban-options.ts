import { z } from 'zod';
import { moveHistoryOption } from '../grid/last-move.js';
import { unknownKeyError } from '../grid/unknown-key-error.js';
import { SOKOBAN_REWARDS } from './sokoban-env.js';

/** Header facts of compact prompts (see `hint` below). */
export const SOKOBAN_HINTS = ['none', 'box-goal', 'box-goal-open', 'push-open'] as const;
export type SokobanHint = (typeof SOKOBAN_HINTS)[number];

export const SOKOBAN_LIMITS = {
  /** 5 leaves a 3x3 floor inside the outer wall, the least that holds a puzzle. */
  minSize: 5,
  /** Keeps the exhaustive solvers fast and state keys exact. */
  maxSize: 10,
  maxBoxes: 4,
  /** Floor cells needed per box, so boxes have room to be pushed around. */
  cellsPerBox: 4,
  maxWallFraction: 0.3,
  maxMoves: 200,
} as const;

const int = (key: string) =>
  z.number({ error: `${key} must be a number` }).int({ error: `${key} must be a whole number` });

const sokobanOptionsShape = {
  /** Side of the square room including its outer wall; 6 as in the published runs. */
  size: int('size')
    .min(SOKOBAN_LIMITS.minSize, { error: `size must be at least ${SOKOBAN_LIMITS.minSize} (outer wall plus a 3x3 floor)` })
    .max(SOKOBAN_LIMITS.maxSize, { error: `size must be at most ${SOKOBAN_LIMITS.maxSize}` })
    .default(6),
  /** Boxes (and goals); 1 as in the published runs. */
  boxes: int('boxes')
    .min(1, { error: 'boxes must be at least 1' })
    .max(SOKOBAN_LIMITS.maxBoxes, { error: `boxes must be at most ${SOKOBAN_LIMITS.maxBoxes}` })
    .default(1),
  /** Share of the interior cells that are walls (besides the outer wall). */
  wall_fraction: z
    .number({ error: 'wall_fraction must be a number' })
    .min(0, { error: 'wall_fraction must be at least 0' })
    .max(SOKOBAN_LIMITS.maxWallFraction, {
      error: `wall_fraction must be at most ${SOKOBAN_LIMITS.maxWallFraction} (rooms fall apart); try 0.1`,
    })
    .default(0.1),
  /** Cap on the moves of one answer; longer answers are a recorded failure. */
  max_moves: int('max_moves')
    .min(1, { error: 'max_moves must be at least 1' })
    .max(SOKOBAN_LIMITS.maxMoves, { error: `max_moves must be at most ${SOKOBAN_LIMITS.maxMoves}` })
    .default(20),
  /**
   * Reward of an answer with no usable move list (unparseable, empty, over the move cap). By
   * default the same as a blocked move; RL on a weak policy can then drift to empty answers,
   * which cost no more than bumping into a wall. A lower value makes "no answer" the worst choice.
   */
  unparseable_reward: z
    .number({ error: 'unparseable_reward must be a number' })
    .max(0, { error: 'unparseable_reward must be at most 0' })
    .default(SOKOBAN_REWARDS.invalid),
  /**
   * Reward of a blocked move (into a wall, or pushing a box into a wall or box; the player
   * stays put). The published -0.05 costs less than a walk that adds a move to the plan (-0.11
   * with solve_shaping 0.1), so where no branch of a node draws a good move, GRPO's group
   * normalisation pushes the policy toward bumping again (Plan-Path's wall_reward has the
   * same story). With solve_shaping 0.1, a value below -0.11 makes a blocked move cost more
   * than any walk; at -0.3 the 6x6 example pushed boxes into deadlocks instead (docs/results.md).
   */
  blocked_reward: z
    .number({ error: 'blocked_reward must be a number' })
    .max(0, { error: 'blocked_reward must be at most 0' })
    .default(SOKOBAN_REWARDS.invalid),
  /**
   * Weight of an optional potential-based shaping on the fewest moves left to solve (the
   * solver's count): +w for a move along an optimal plan, 0 or -w otherwise, -w into an
   * unsolvable state. Plan-Path's BFS shaping is the same idea. 0 (the default) keeps the
   * published rewards, where every walk earns the same and only pushes are told apart.
   */
  solve_shaping: z
    .number({ error: 'solve_shaping must be a number' })
    .min(0, { error: 'solve_shaping must be at least 0' })
    .max(1, { error: 'solve_shaping must be at most 1 (the box-on-goal reward); try 0.1' })
    .default(0),
  /**
   * Compact format only: facts added to the prompt header for tiny models, which struggle to
   * locate pieces in a character grid. `box-goal`: where the box lies from the player and the
   * goal from the box (`BOX D1 R2 GOAL U1`); `box-goal-open`: also the moves that are not
   * blocked (`OPEN UDL`). `push-open`: the next push of an optimal solution and where the
   * player stands to make it (`PUSH L FROM U1 R2`, `PUSH L HERE` when there), then `OPEN`: a
   * subgoal computed by the solver, a stronger hint than the others. The board is shown as
   * before; `none` keeps the `ON0/1` status.
   */
  hint: z.enum(SOKOBAN_HINTS, { error: `hint must be one of ${SOKOBAN_HINTS.join(' | ')}` }).default('none'),
  /**
   * Compact format only: `last` ends the header with `LAST R`, the move committed on the
   * previous turn (`LAST RX` when it was blocked, `LAST ?` when that answer was unusable,
   * `LAST -` before any): one move of memory (src/envs/grid/last-move.ts).
   */
  history: moveHistoryOption,
};

/** Options of the Sokoban task (`tasks: [{ name: sokoban, size: 6, boxes: 1 }]`). */
export const sokobanOptionsSchema = z
  .strictObject(sokobanOptionsShape, unknownKeyError('sokoban', Object.keys(sokobanOptionsShape)))
  .superRefine((options, ctx) => {
    const floor = (options.size - 2) ** 2;
    if (options.boxes * SOKOBAN_LIMITS.cellsPerBox > floor) {
      ctx.addIssue({
        code: 'custom',
        path: ['boxes'],
        message: `boxes ${options.boxes} do not fit a ${options.size}x${options.size} room (at most ${Math.floor(floor / SOKOBAN_LIMITS.cellsPerBox)}); lower boxes or raise size`,
      });
    }
  });

export type SokobanOptions = z.output<typeof sokobanOptionsSchema>;
