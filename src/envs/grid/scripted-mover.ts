/**
 * The model-free player of grid tasks. It reads the board back from the prompt, then builds a
 * move list move by move: with probability `skill` the next move of an optimal plan from the
 * position reached so far, otherwise a uniformly random move. The list is as long as the
 * optimal plan (capped by the prompt's move cap), so skill 1 plays exactly an optimal plan and
 * skill 0 a random walk of that length. `plan` ignores the tool's proposal: it re-solves from
 * the board, which is what an optimal planner would commit anyway.
 *
 * In the natural format the `tool` answers with a Python program instead (scripted-program.ts):
 * the board, a BFS, and the same skill mix drawn here as a step list, so the program's output
 * is what this player would have written as moves, computed by a real program in the sandbox.
 */
import type { ScriptedResponder } from '../types.js';
import { DIRECTIONS } from './direction.js';
import { formatMoves } from './parse-moves.js';
import { readMaxMoves, readPromptFormat } from './read-board.js';
import { fencedPython } from './scripted-program.js';
import type { Direction } from './types.js';

/** What the scripted player needs from a task: its board read back, a solver, a simulator. */
export interface ScriptedGame<S> {
  /** The state shown in the prompt, or undefined when no board is found. */
  read(prompt: string): S | undefined;
  /** An optimal move list from `state`, or undefined when unsolvable (or too big to solve). */
  solve(state: S): Direction[] | undefined;
  /** The state after one move (an illegal move leaves it unchanged). */
  apply(state: S, dir: Direction): S;
  solved(state: S): boolean;
  /** Whether the state can no longer be solved (e.g. a Sokoban deadlock): stop moving. */
  lost?(state: S): boolean;
  /**
   * The Python program of the natural-format tool: the prompt's board plus a BFS that follows
   * `steps` (`*` = next move of a shortest plan, a letter = that move); see scripted-program.ts.
   */
  program(prompt: string, steps: string): string;
}

/** Used when the prompt does not state the move cap. */
export const SCRIPTED_DEFAULT_MAX_MOVES = 20;

export function createScriptedMover<S>(game: ScriptedGame<S>): ScriptedResponder {
  return ({ role, prompt, skill, rng }) => {
    const format = readPromptFormat(prompt);
    const maxMoves = readMaxMoves(prompt) ?? SCRIPTED_DEFAULT_MAX_MOVES;
    let state = game.read(prompt);
    const writesProgram = role === 'tool' && format === 'natural';
    if (state === undefined) {
      const move = rng.pick(DIRECTIONS);
      return writesProgram ? fencedPython(`print(${JSON.stringify(move)})`) : formatMoves([move], format);
    }
    let plan = game.solve(state);
    const length = Math.max(1, Math.min(maxMoves, plan?.length ?? maxMoves));
    if (writesProgram) {
      const steps = Array.from({ length }, () => (rng.next() < skill ? '*' : rng.pick(DIRECTIONS))).join('');
      return fencedPython(game.program(prompt, steps));
    }
    const moves: Direction[] = [];
    while (moves.length < length && !game.solved(state) && !(game.lost?.(state) ?? false)) {
      let dir: Direction;
      if (rng.next() < skill && (plan ??= game.solve(state)) !== undefined && plan.length > 0) {
        dir = plan.shift()!;
      } else {
        dir = rng.pick(DIRECTIONS);
        plan = undefined; // off the plan: re-solve from wherever this move leads
      }
      moves.push(dir);
      state = game.apply(state, dir);
    }
    if (moves.length === 0) moves.push(rng.pick(DIRECTIONS));
    return formatMoves(moves, format);
  };
}
