/**
 * The Sudoku 4x4 task: fill a 4x4 grid (2x2 boxes, digits 1-4) from seeded puzzles that have
 * exactly one solution. Team variant: `tool` proposes fills that are checked on a copy of the
 * board (natural format: a Python program, run in the sandbox, prints them), `plan` sees the
 * proposal and its verdicts and commits; single variant: `agent`.
 *
 *   tasks: { name: sudoku, holes: 8 }      # in a run config
 *
 * Rewards: see sudoku-rewards.ts. Turn limit 3 by default: a perfect player needs one turn;
 * the other two let a team repair rejected or wrong fills.
 */
import { z } from 'zod';
import { moveHistoryOption } from '../grid/last-move.js';
import { unknownKeyError } from '../grid/unknown-key-error.js';
import { Rng, deriveSeed } from '../../util/rng.js';
import type { Role, Split, TaskDefinition, TaskSource, Team, TeamOptions } from '../types.js';
import { MAX_HOLES } from './generate-sudoku.js';
import { generateSudokuForSplit } from './puzzle-split.js';
import { SudokuEnv } from './sudoku-env.js';
import { CELL_COUNT, SUDOKU_SIZE, emptyCount, fillProgress } from './sudoku-grid.js';
import { UNSOLVED_PROGRESS_WEIGHT } from './sudoku-rewards.js';
import { SUDOKU_HINTS } from './sudoku-prompts.js';
import { createCommitRole, createProgramToolRole, createToolRole } from './sudoku-roles.js';
import { sudokuScripted } from './sudoku-scripted.js';

const sudokuOptionsShape = {
  /** Grid side. Only 4 (2x2 boxes) for now; the key exists so configs can say so explicitly. */
  size: z
    .literal(SUDOKU_SIZE, { error: `size must be ${SUDOKU_SIZE}: only 4x4 Sudoku (2x2 boxes) is supported for now` })
    .default(SUDOKU_SIZE),
  /** Empty cells per puzzle: 8 of 16 is easy for a solver yet leaves a model real choices. */
  holes: z
    .number({ error: `holes must be an integer from 1 to ${MAX_HOLES}` })
    .int({ error: `holes must be an integer from 1 to ${MAX_HOLES}` })
    .min(1, { error: `holes must be at least 1 (a puzzle needs an empty cell)` })
    .max(MAX_HOLES, { error: `holes must be at most ${MAX_HOLES} (a unique 4x4 puzzle keeps at least 4 givens)` })
    .default(8),
  /** Fills allowed in one answer; more void the answer. 16 covers every cell once. */
  max_fills: z
    .number({ error: 'max_fills must be an integer from 1 to 64' })
    .int({ error: 'max_fills must be an integer from 1 to 64' })
    .min(1, { error: 'max_fills must be at least 1' })
    .max(64, { error: 'max_fills must be at most 64' })
    .default(CELL_COUNT),
  /**
   * Compact prompts only: `empty` adds a line `EMPTY 12 14 21` naming the empty cells (row,
   * column). It restates the board, nothing from the solution, for models that cannot count
   * their way to a cell's coordinates. On the 0.2M embedded model it did not make Sudoku
   * learnable (docs/results.md). `cell` adds `CELL 23 ROW 1.3. COL ..4. BOX 3.1.`: the empty
   * cell with the fewest candidates and its row, column and box, counted by the rules from the
   * board (never the solution); the model still finds the missing digit.
   */
  hint: z
    .enum(SUDOKU_HINTS, { error: `hint must be one of ${SUDOKU_HINTS.join(' | ')}` })
    .default('none'),
  /**
   * Compact prompts only: `last` adds `LAST 231 X`, the fills played on the previous turn
   * and their verdicts (the natural format always tells the earlier turns). Without it a
   * model that repeats a rejected digit sees the very same prompt again and again.
   */
  history: moveHistoryOption,
};

export const sudokuOptionsSchema = z.strictObject(
  sudokuOptionsShape,
  unknownKeyError('sudoku', Object.keys(sudokuOptionsShape)),
);

export type SudokuOptions = z.infer<typeof sudokuOptionsSchema>;

export const SUDOKU_DEFAULT_MAX_TURNS = 3;

function createSource(options: SudokuOptions, seed: number): TaskSource<SudokuEnv> {
  return {
    make(index: number, split: Split): SudokuEnv {
      // Labelled streams per split, and puzzles partitioned by hash (puzzle-split.ts), so
      // no eval puzzle ever appears in training.
      const rng = new Rng(deriveSeed(seed, 'sudoku', split, index));
      return new SudokuEnv(`sudoku/${split}/${index}`, generateSudokuForSplit(rng, { holes: options.holes, split }));
    },
  };
}

/** Team reward: 1 when solved, else UNSOLVED_PROGRESS_WEIGHT x (holes right - holes wrong) / holes, at least 0. */
export function sudokuGlobalReward(env: SudokuEnv): number {
  if (env.success) return 1;
  const holes = emptyCount(env.puzzle.givens);
  return (UNSOLVED_PROGRESS_WEIGHT * Math.max(0, fillProgress(env.cells, env.puzzle.givens, env.puzzle.solution))) / holes;
}

function createTeam(options: SudokuOptions, team: TeamOptions): Team<SudokuEnv> {
  const roleOptions = { format: team.format, maxFills: options.max_fills, hint: options.hint, history: options.history };
  // The natural tool writes a program that runs in the code sandbox; a host that cannot
  // sandbox fails on the first run with the sandbox's own error.
  const tool = () => (team.format === 'natural' ? createProgramToolRole(roleOptions) : createToolRole(roleOptions));
  const roles: Role<SudokuEnv, any>[] =
    team.variant === 'team' ? [tool(), createCommitRole('plan', roleOptions)] : [createCommitRole('agent', roleOptions)];
  return {
    name: `sudoku/${team.variant}`,
    roles,
    order: team.order,
    maxTurns: team.maxTurns,
    alpha: team.alpha,
    globalReward: sudokuGlobalReward,
  };
}

export const sudokuTask: TaskDefinition<SudokuEnv, SudokuOptions> = {
  name: 'sudoku',
  description: '4x4 Sudoku (2x2 boxes) with unique solutions; tool proposes fills, plan commits them',
  optionsSchema: sudokuOptionsSchema,
  defaultMaxTurns: SUDOKU_DEFAULT_MAX_TURNS,
  teamRoles: ['tool', 'plan'],
  createSource,
  createTeam,
  scripted: sudokuScripted,
};

export { SudokuEnv } from './sudoku-env.js';
export { countSolutions, solveSudoku } from './count-solutions.js';
export { generateSudoku } from './generate-sudoku.js';
export { puzzleSplit } from './puzzle-split.js';
