/**
 * The live state of one Sudoku task: the puzzle (immutable, shared by clones), the current
 * board, and the history of proposals and commits that prompts show. Everything a prompt needs
 * lives here, so a clone prompts exactly like its original.
 */
import type { ProgramRecord } from '../grid/program-tool.js';
import type { Env } from '../types.js';
import { type Fill, type FillResult, type FillsOutcome, applyFills } from './apply-fills.js';
import type { SudokuPuzzle } from './generate-sudoku.js';
import { type Cells, emptyCount, sameCells } from './sudoku-grid.js';

/** What one role did in one turn: a simulated proposal (tool) or a committed action. */
export interface SudokuRecord {
  readonly turn: number;
  readonly role: string;
  /** `propose`: judged on a copy, board unchanged; `commit`: applied to the board. */
  readonly kind: 'proposal' | 'commit';
  readonly fills: readonly Fill[];
  readonly results: readonly FillResult[];
  readonly reward: number;
  /** The fills solve (would solve, for a proposal) the puzzle. */
  readonly solved: boolean;
  /** Empty cells after the fills (on the copy, for a proposal). */
  readonly empty: number;
  /** Why the text gave no usable action (then fills and results are empty). */
  readonly failure?: string;
  /** Natural-format tool only: its program and how the sandboxed run went. */
  readonly program?: ProgramRecord;
}

export class SudokuEnv implements Env {
  readonly taskId: string;
  readonly puzzle: SudokuPuzzle;
  private board: number[];
  private readonly records: SudokuRecord[];

  constructor(taskId: string, puzzle: SudokuPuzzle) {
    this.taskId = taskId;
    this.puzzle = puzzle;
    this.board = [...puzzle.givens];
    this.records = [];
  }

  get cells(): Cells {
    return this.board;
  }

  get history(): readonly SudokuRecord[] {
    return this.records;
  }

  get success(): boolean {
    return sameCells(this.board, this.puzzle.solution);
  }

  /**
   * Solved, or full but not the stored solution. Rejecting conflicting fills makes a full
   * board a valid Sudoku, so for a generated (unique) puzzle full means solved; a dataset
   * puzzle with several solutions could end full but different, and that is a failure.
   */
  get done(): boolean {
    return emptyCount(this.board) === 0;
  }

  /** Why a finished episode failed, for logs; undefined while running or when solved. */
  get failureReason(): string | undefined {
    return this.done && !this.success ? 'full but wrong: the board is full but differs from the solution' : undefined;
  }

  /** Judges fills on a copy of the board; the board and history are unchanged. */
  simulate(fills: readonly Fill[]): FillsOutcome {
    return applyFills({ cells: this.board, givens: this.puzzle.givens, solution: this.puzzle.solution, fills });
  }

  /** Applies the valid fills to the board. */
  commit(fills: readonly Fill[]): FillsOutcome {
    const outcome = this.simulate(fills);
    this.board = outcome.cells;
    return outcome;
  }

  /** Appends to the history. Records are frozen, so clones can share them safely. */
  record(entry: SudokuRecord): void {
    Object.freeze(entry.fills);
    Object.freeze(entry.results);
    this.records.push(Object.freeze(entry));
  }

  clone(): this {
    // Records are frozen once written, so the copies may share them; the arrays are new.
    const copy = new SudokuEnv(this.taskId, this.puzzle);
    copy.board = [...this.board];
    copy.records.push(...this.records);
    return copy as this;
  }
}
