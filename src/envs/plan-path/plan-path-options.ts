import { z } from 'zod';
import { moveHistoryOption } from '../grid/last-move.js';
import { unknownKeyError } from '../grid/unknown-key-error.js';
import { PLAN_PATH_REWARDS } from './plan-path-env.js';

/** Header facts of compact prompts (see `hint` below). */
export const PLAN_PATH_HINTS = ['none', 'goal', 'goal-open'] as const;
export type PlanPathHint = (typeof PLAN_PATH_HINTS)[number];

/** Limits that keep generation fast and prompts readable; see the messages below. */
export const PLAN_PATH_LIMITS = {
  minSide: 2,
  maxSide: 32,
  /** Above this, random grids rarely hold a start and goal far enough apart. */
  maxWallFraction: 0.6,
  maxMoves: 200,
} as const;

const side = (key: string) =>
  z
    .number({ error: `${key} must be a number` })
    .int({ error: `${key} must be a whole number` })
    .min(PLAN_PATH_LIMITS.minSide, { error: `${key} must be at least ${PLAN_PATH_LIMITS.minSide} (a grid needs a start and a goal)` })
    .max(PLAN_PATH_LIMITS.maxSide, { error: `${key} must be at most ${PLAN_PATH_LIMITS.maxSide}` });

/**
 * Options of the Plan-Path task (`tasks: [{ name: plan-path, ... }]`). `height`/`width`
 * override `size` for non-square grids.
 */
const planPathOptionsShape = {
  /** Side of the square grid; 10 as in the published runs. */
  size: side('size').default(10),
  height: side('height').optional(),
  width: side('width').optional(),
  /** Share of cells that are walls; 0.22 as in the published runs. */
  wall_fraction: z
    .number({ error: 'wall_fraction must be a number' })
    .min(0, { error: 'wall_fraction must be at least 0' })
    .max(PLAN_PATH_LIMITS.maxWallFraction, {
      error: `wall_fraction must be at most ${PLAN_PATH_LIMITS.maxWallFraction} (denser grids fall apart); try 0.22`,
    })
    .default(0.22),
  /** Fewest moves between start and goal, so no task is trivial. */
  min_distance: z
    .number({ error: 'min_distance must be a number' })
    .int({ error: 'min_distance must be a whole number' })
    .min(1, { error: 'min_distance must be at least 1' })
    .default(2),
  /** Cap on the moves of one answer; longer answers are a recorded failure. */
  max_moves: z
    .number({ error: 'max_moves must be a number' })
    .int({ error: 'max_moves must be a whole number' })
    .min(1, { error: 'max_moves must be at least 1' })
    .max(PLAN_PATH_LIMITS.maxMoves, { error: `max_moves must be at most ${PLAN_PATH_LIMITS.maxMoves}` })
    .default(20),
  /**
   * Reward of an answer with no usable move list (unparseable, empty, over the move cap). By
   * default the same as a move into a wall; RL on a weak policy can then drift to empty answers,
   * which cost no more than a wall and less than a move away from the goal. A lower value makes
   * "no answer" the worst choice.
   */
  unparseable_reward: z.number({ error: 'unparseable_reward must be a number' }).max(0, { error: 'unparseable_reward must be at most 0' }).default(-0.1),
  /**
   * Reward of a move into a wall or off the grid (the agent stays put). The published task's
   * -0.1 is a little better than a step away from the goal (-0.01 - 0.1 shaping = -0.11), and
   * the team reward, which counts progress, also prefers standing still to walking back: where
   * a policy samples only bad moves, group-normalised advantages (GRPO divides by the group's
   * spread) turn that 0.01-0.04 difference into a large push toward bumping the same wall
   * again. At -0.4 a bump is the worst legal move everywhere: a step back costs -0.11 and at
   * most 0.5 / (start-goal distance) of team progress, 0.25 at min_distance 2. On 10x10 that
   * traded the bumps for steps away and back (docs/results.md), so the default stays.
   */
  wall_reward: z.number({ error: 'wall_reward must be a number' }).max(0, { error: 'wall_reward must be at most 0' }).default(PLAN_PATH_REWARDS.invalid),
  /**
   * Compact format only: facts added to the prompt header for tiny models, which struggle to
   * locate P and G in a character grid. `goal`: where G lies from P (`GOAL D1 R2`: 1 row down,
   * 2 columns right); `goal-open`: also the moves that do not hit a wall or the edge
   * (`OPEN UDL`). The board is shown as before; `none` leaves the header unchanged.
   */
  hint: z.enum(PLAN_PATH_HINTS, { error: `hint must be one of ${PLAN_PATH_HINTS.join(' | ')}` }).default('none'),
  /**
   * Compact format only: `last` ends the header with `LAST R`, the move committed on the
   * previous turn (`LAST RX` when it hit a wall, `LAST ?` when that answer was unusable,
   * `LAST -` before any). It is the game's own record: one move of memory, without which a
   * model that sees only the current board cannot tell where it came from and walks back and
   * forth between two cells.
   */
  history: moveHistoryOption,
};

export const planPathOptionsSchema = z.strictObject(
  planPathOptionsShape,
  unknownKeyError('plan-path', Object.keys(planPathOptionsShape)),
);

export type PlanPathOptions = z.output<typeof planPathOptionsSchema>;

export function planPathShape(options: PlanPathOptions): { height: number; width: number } {
  return { height: options.height ?? options.size, width: options.width ?? options.size };
}
