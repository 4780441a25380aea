/**
 * The Sudoku reward table. SEEDS.md gives none for Sudoku, so it follows the Plan-Path and
 * Sokoban tables in spirit: a small cost per action unit, a larger penalty for a move the rules
 * forbid, potential-based shaping on progress, and a bonus for solving.
 *
 * | event                                                    | reward                      |
 * |----------------------------------------------------------|-----------------------------|
 * | valid fill (applied)                                     | -0.01                       |
 * | invalid fill: a given cell, row/col/digit outside 1-4,   | -0.1 (instead of -0.01),    |
 * |   or a digit already in the cell's row, column or box    |   NOT applied               |
 * | shaping                                                  | +0.1 x change in (non-given |
 * |                                                          |   cells that match the      |
 * |                                                          |   solution - those that do  |
 * |                                                          |   not)                      |
 * | the grid becomes the solution                            | +1                          |
 * | unparseable text / no fills / too many fills             | -0.1, nothing applied       |
 *
 * Why invalid fills are rejected rather than applied and flagged: the board then never holds a
 * rule violation, so every prompt shows a legal position and the penalty lands on exactly the
 * fill that broke a rule. Player fills may be overwritten (only givens are fixed), so a wrong
 * but legal digit can be corrected in a later turn. The shaping is a potential difference, so
 * writing a correct digit, erasing it by an overwrite and writing it again earns nothing net.
 * A wrong digit counts against the potential: a legal but wrong fill leaves a board with no
 * completion, and with best-branch tree sampling a fill that cost no more than -0.01 would be
 * chosen over a rejected one (-0.1), which at least changes nothing; now it costs -0.11.
 */
export const SUDOKU_REWARDS = {
  /** Cost of every applied fill: prefer short, exact answers. */
  fillCost: -0.01,
  /** Replaces fillCost for a fill the rules forbid. */
  invalidFill: -0.1,
  /** Per non-given cell newly matching the solution, and minus this per cell newly holding a wrong digit. */
  correctFillShaping: 0.1,
  /** Once, when the grid becomes the solution. */
  solveBonus: 1,
  /** Text that yields no fills (or more than max_fills): the whole action is void. */
  parseFailure: -0.1,
} as const;

/**
 * Team (global) reward, a pure function of the board: 1 when solved, else half of (holes filled
 * correctly - holes filled wrongly) / holes, at least 0, so any unsolved board scores at most 0.5
 * and solving always stands out.
 */
export const UNSOLVED_PROGRESS_WEIGHT = 0.5;
