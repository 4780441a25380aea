/**
 * The vocabulary shared by Troupe's grid tasks (Plan-Path, Sokoban). Read this file first.
 *
 * Every grid task is played the same way: each turn the team commits a *list of moves*
 * (U/D/L/R) to the env. The `team` variant has two roles: `tool` proposes a list, which is
 * simulated on a COPY of the env (the real board never changes), and `plan` sees the board plus
 * the proposal and its simulated result and commits the list that is applied for real. The
 * `single` variant has one role, `agent`, that commits directly. So a grid task supplies only:
 * an env implementing {@link MoveEnv} (state, `applyMoves`, clone), a {@link MovePresenter}
 * (how the state and results look in a prompt), and a scripted game for the model-free player.
 * Roles, prompts, parsing and the team are shared code in this folder.
 */
import type { Env, TeamOptions } from '../types.js';
import type { ProgramRecord } from './program-tool.js';

/** A move: up, down, left, right. Rows grow downwards, so `D` adds one to the row. */
export type Direction = 'U' | 'D' | 'L' | 'R';

/** `compact` (tiny character-level models) or `natural` (real LLMs); see TeamOptions. */
export type PromptFormat = TeamOptions['format'];

/** What applying a move list did. Tasks extend it with their own facts (end cell, boxes). */
export interface MoveReport {
  /** The requested moves as letters, e.g. `RRD`. */
  readonly moves: string;
  /** Moves that were tried (valid or not) before the episode ended. */
  readonly executed: number;
  /** Of the executed moves, those that were illegal (into a wall, off the grid, blocked push). */
  readonly invalid: number;
  /** Moves left over after the episode ended mid-list: not executed, reported, not dropped. */
  readonly unused: number;
  /** The summed reward of the executed moves. */
  readonly reward: number;
  readonly solved: boolean;
  /** What went wrong (illegal moves, deadlock), for StepOutcome.failure. */
  readonly failure?: string;
}

/**
 * One entry of an env's history: what a role sent in one turn. History lives in the env so
 * clones carry it and prompts are a pure function of the env.
 */
export interface MoveRecord<R extends MoveReport = MoveReport> {
  readonly turn: number;
  readonly role: string;
  /** `proposal`: simulated on a copy (tool); `commit`: applied to the env (plan, agent). */
  readonly kind: 'proposal' | 'commit';
  /** The moves as letters; absent when the text could not be parsed. */
  readonly moves?: string;
  /** The (simulated or real) result; absent when the text could not be parsed. */
  readonly report?: R;
  /** Why the action failed, when it did (parse failure, illegal moves, deadlock). */
  readonly failure?: string;
  /**
   * Natural-format tool only: the program it wrote and how its sandboxed run went. `moves`
   * and `report` are then what the program printed and its simulation (absent when the run
   * failed or its output was not a move list).
   */
  readonly program?: ProgramRecord;
}

/** The env side of a grid task. `clone()` must copy the history too. */
export interface MoveEnv<R extends MoveReport = MoveReport> extends Env {
  readonly history: readonly MoveRecord<R>[];
  /** Appends one record (records are immutable, so clones may share them). */
  record(entry: MoveRecord<R>): void;
  /** Applies moves to this env (mutating it) and reports what happened. */
  applyMoves(moves: readonly Direction[]): R;
  /** Reward for an action that could not be parsed or broke the move cap. */
  readonly invalidPenalty: number;
}

/** How a task's state and results look in prompts. All functions are pure. */
export interface MovePresenter<E extends MoveEnv<R>, R extends MoveReport> {
  /** Board rows, the same characters in both formats (the scripted player reads them back). */
  board(env: E): string[];
  /**
   * Facts shown in the header (compact: a short upper-case token such as `ON0/1`) or after
   * the board (natural: sentences); '' for none.
   */
  status(env: E, format: PromptFormat): string;
  /** The result of a move list in one line (compact: upper case, digits and symbols only). */
  describe(report: R, format: PromptFormat): string;
  /** Natural format only: what the puzzle is, the legend and the rules, one paragraph a line. */
  rules(env: E): string[];
  /**
   * Natural format only: where the pieces stand, in 1-based (row, column) coordinates, as one
   * sentence (e.g. `P is at row 2, column 3; G is at row 9, column 7.`).
   */
  landmarks?(env: E): string;
}
