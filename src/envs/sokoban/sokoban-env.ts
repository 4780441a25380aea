/**
 * The live state of one Sokoban task. Rewards (per move, SEEDS.md):
 *
 *   walk                 STEP
 *   push                 STEP + SHAPING * (d(from) - d(to))    d = box walking distance to a goal
 *                        + BOX_ON_GOAL if it lands on a goal, + BOX_OFF_GOAL if it leaves one
 *   illegal move         INVALID (into a wall, or pushing into a wall or box; replaces STEP;
 *                        the task option blocked_reward may set another value)
 *   solving              + SOLVED
 *   any legal move       + solveShaping * (m(before) - m(after))   m = fewest moves left to solve
 *                        (the solver's), -solveShaping into an unsolvable state; 0 by default
 *
 * The optional solve shaping is potential-based, like Plan-Path's BFS shaping (there the
 * distance to the goal *is* the moves left): it never changes which plans are best, but it
 * tells per-turn credit (AT-GRPO compares the candidates of one turn) which walks lead on.
 * Without it every walk earns the same STEP, and only pushes are told apart.
 *
 * A push from one goal straight onto another earns both goal terms (+1 - 0.5): the rules count
 * "pushed onto a goal" and "pushed off a goal" as separate events.
 *
 * The episode ends when solved, or when a box is pushed onto a dead square (a certain
 * deadlock, see sokoban-room.ts): `failureReason` then says which box. Deadlocks of several
 * boxes jamming each other are not detected; the turn limit ends those episodes.
 */
import { roundReward } from '../grid/format-reward.js';
import { colOf, rowOf } from '../grid/grid-shape.js';
import type { Direction, MoveEnv, MoveRecord, MoveReport } from '../grid/types.js';
import type { SokobanTask } from './generate-sokoban.js';
import { boxesOnGoals, deadBox, isSolved, sokobanMove, type SokobanState } from './sokoban-move.js';
import { solveSokoban } from './solve-sokoban.js';

export const SOKOBAN_REWARDS = {
  step: -0.01,
  invalid: -0.05,
  shaping: 0.1,
  boxOnGoal: 1,
  boxOffGoal: -0.5,
  solved: 10,
  /** Team reward for an unsolved state at most this much (scaled by box distance progress). */
  progress: 0.5,
} as const;

export interface SokobanReport extends MoveReport {
  readonly pushes: number;
  readonly onGoals: number;
  readonly boxes: number;
  readonly deadlock: boolean;
}

export class SokobanEnv implements MoveEnv<SokobanReport> {
  /** Reward for an answer that could not be parsed (or broke the move cap); see sokoban-options.ts. */
  readonly invalidPenalty: number;
  private current: SokobanState;
  private records: MoveRecord<SokobanReport>[] = [];
  /** Why the puzzle became unsolvable, once it has. */
  private deadlockReason: string | undefined;

  constructor(
    readonly task: SokobanTask,
    unparseableReward: number = SOKOBAN_REWARDS.invalid,
    /** Weight of the moves-left shaping (sokoban-options.ts `solve_shaping`); 0 = off. */
    readonly solveShaping = 0,
    /** Reward of a blocked move (sokoban-options.ts `blocked_reward`). */
    readonly blockedPenalty: number = SOKOBAN_REWARDS.invalid,
  ) {
    this.invalidPenalty = unparseableReward;
    this.current = task.start;
  }

  get taskId(): string {
    return this.task.id;
  }
  get state(): SokobanState {
    return this.current;
  }
  get success(): boolean {
    return isSolved(this.task.room, this.current);
  }
  get deadlocked(): boolean {
    return this.deadlockReason !== undefined;
  }
  get done(): boolean {
    return this.success || this.deadlocked;
  }
  get failureReason(): string | undefined {
    return this.deadlockReason;
  }
  get history(): readonly MoveRecord<SokobanReport>[] {
    return this.records;
  }

  record(entry: MoveRecord<SokobanReport>): void {
    this.records.push(entry);
  }

  clone(): this {
    const copy = new SokobanEnv(this.task, this.invalidPenalty, this.solveShaping, this.blockedPenalty);
    copy.current = this.current; // states are immutable values
    copy.records = [...this.records];
    copy.deadlockReason = this.deadlockReason;
    return copy as this;
  }

  applyMoves(moves: readonly Direction[]): SokobanReport {
    const { room } = this.task;
    let reward = 0;
    let executed = 0;
    let invalid = 0;
    let pushes = 0;
    for (const dir of moves) {
      if (this.done) break;
      executed++;
      const moved = sokobanMove(room, this.current, dir);
      if (moved === undefined) {
        invalid++;
        reward += this.blockedPenalty;
        continue;
      }
      if (this.solveShaping > 0) reward += this.solveShaping * movesLeftGain(room, this.current, moved.state);
      this.current = moved.state;
      reward += SOKOBAN_REWARDS.step;
      if (moved.pushedFrom < 0) continue;
      pushes++;
      const { pushedFrom: from, pushedTo: to } = moved;
      reward += SOKOBAN_REWARDS.shaping * (room.goalDist[from]! - room.goalDist[to]!);
      if (room.goals[to] === 1) reward += SOKOBAN_REWARDS.boxOnGoal;
      if (room.goals[from] === 1) reward += SOKOBAN_REWARDS.boxOffGoal;
      if (this.success) reward += SOKOBAN_REWARDS.solved;
      const dead = deadBox(room, this.current);
      if (dead !== undefined) {
        this.deadlockReason = `deadlock: the box at row ${rowOf(room.shape, dead) + 1}, column ${colOf(room.shape, dead) + 1} can never reach a goal`;
      }
    }
    const problems = [
      ...(invalid > 0 ? [`${invalid} of ${executed} moves were blocked`] : []),
      ...(this.deadlockReason !== undefined ? [this.deadlockReason] : []),
    ];
    return {
      moves: moves.join(''),
      executed,
      invalid,
      unused: moves.length - executed,
      reward: roundReward(reward),
      solved: this.success,
      pushes,
      onGoals: boxesOnGoals(room, this.current),
      boxes: this.current.boxes.length,
      deadlock: this.deadlocked,
      ...(problems.length === 0 ? {} : { failure: problems.join('; ') }),
    };
  }
}

/**
 * m(before) - m(after) for one legal move, m = the solver's fewest moves left: 1 for a move of
 * an optimal plan, 0 or -1 otherwise; -1 into an unsolvable state, 0 from one.
 */
function movesLeftGain(room: SokobanTask['room'], before: SokobanState, after: SokobanState): number {
  const left = (state: SokobanState) => {
    const solution = solveSokoban({ room, state });
    return solution.status === 'solved' ? solution.moves.length : undefined;
  };
  const from = left(before);
  if (from === undefined) return 0;
  const to = left(after);
  return to === undefined ? -1 : from - to;
}

/**
 * Team (global) reward: 1 when solved, 0 when deadlocked, otherwise up to
 * SOKOBAN_REWARDS.progress for the share of the boxes' total goal distance covered since the
 * start. Bounded in [0, 1]; a pure function of the state.
 */
export function sokobanGlobalReward(env: SokobanEnv): number {
  if (env.success) return 1;
  if (env.deadlocked) return 0;
  const { room, start } = env.task;
  const total = (state: SokobanState) => state.boxes.reduce((sum, box) => sum + room.goalDist[box]!, 0);
  const initial = total(start);
  return initial === 0 ? 0 : SOKOBAN_REWARDS.progress * Math.max(0, 1 - total(env.state) / initial);
}
