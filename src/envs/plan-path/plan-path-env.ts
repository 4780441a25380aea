/**
 * The live state of one Plan-Path task: where the agent stands, how far it has walked, and the
 * team's move history. Rewards (per move, SEEDS.md):
 *
 *   legal move      STEP + SHAPING * (d_before - d_after)   d = BFS distance to the goal
 *   illegal move    INVALID (into a wall or off the grid; the agent stays; replaces STEP;
 *                   the task option wall_reward may set another value)
 *   reaching goal   + GOAL, and + OPTIMAL_BONUS when the cells walked equal the BFS optimum
 *
 * The shaping term is potential-based (potential -SHAPING * d), so it never changes which
 * paths are best. Moves after the goal are not played; the report counts them as `unused`.
 */
import { roundReward } from '../grid/format-reward.js';
import { colOf, neighbor, rowOf } from '../grid/grid-shape.js';
import type { Direction, MoveEnv, MoveRecord, MoveReport } from '../grid/types.js';
import type { PlanPathTask } from './generate-plan-path.js';

export const PLAN_PATH_REWARDS = {
  step: -0.01,
  invalid: -0.1,
  shaping: 0.1,
  goal: 1,
  optimalBonus: 0.5,
  /** Team reward for an unsolved state at most this much (scaled by distance progress). */
  progress: 0.5,
} as const;

export interface PlanPathReport extends MoveReport {
  /** Row and column (0-based) where the moves ended. */
  readonly endRow: number;
  readonly endCol: number;
  /** The goal was reached along a shortest path from the start. */
  readonly optimal: boolean;
}

export class PlanPathEnv implements MoveEnv<PlanPathReport> {
  /** Reward for an answer that could not be parsed (or broke the move cap); see plan-path-options.ts. */
  readonly invalidPenalty: number;
  /** Reward of a move into a wall or off the grid (the task option `wall_reward`). */
  readonly wallPenalty: number;
  private position: number;
  /** Cells walked since the start (illegal moves walk nowhere). */
  private walkedCount = 0;
  private records: MoveRecord<PlanPathReport>[] = [];

  constructor(
    readonly task: PlanPathTask,
    unparseableReward: number = PLAN_PATH_REWARDS.invalid,
    wallReward: number = PLAN_PATH_REWARDS.invalid,
  ) {
    this.invalidPenalty = unparseableReward;
    this.wallPenalty = wallReward;
    this.position = task.start;
  }

  get taskId(): string {
    return this.task.id;
  }
  get pos(): number {
    return this.position;
  }
  get walked(): number {
    return this.walkedCount;
  }
  get done(): boolean {
    return this.position === this.task.goal;
  }
  get success(): boolean {
    return this.position === this.task.goal;
  }
  /** Reached the goal along a shortest path. */
  get optimal(): boolean {
    return this.success && this.walkedCount === this.task.optimal;
  }
  get history(): readonly MoveRecord<PlanPathReport>[] {
    return this.records;
  }

  record(entry: MoveRecord<PlanPathReport>): void {
    this.records.push(entry);
  }

  clone(): this {
    const copy = new PlanPathEnv(this.task, this.invalidPenalty, this.wallPenalty);
    copy.position = this.position;
    copy.walkedCount = this.walkedCount;
    copy.records = [...this.records];
    return copy as this;
  }

  applyMoves(moves: readonly Direction[]): PlanPathReport {
    const { shape, walls, distToGoal, goal } = this.task;
    let reward = 0;
    let executed = 0;
    let invalid = 0;
    for (const dir of moves) {
      if (this.done) break;
      executed++;
      const next = neighbor(shape, this.position, dir);
      if (next < 0 || walls[next] === 1) {
        invalid++;
        reward += this.wallPenalty;
        continue;
      }
      reward += PLAN_PATH_REWARDS.step + PLAN_PATH_REWARDS.shaping * (distToGoal[this.position]! - distToGoal[next]!);
      this.position = next;
      this.walkedCount++;
      if (next === goal) reward += PLAN_PATH_REWARDS.goal + (this.optimal ? PLAN_PATH_REWARDS.optimalBonus : 0);
    }
    const failure = invalid > 0 ? `${invalid} of ${executed} moves hit a wall or the grid edge` : undefined;
    return {
      moves: moves.join(''),
      executed,
      invalid,
      unused: moves.length - executed,
      reward: roundReward(reward),
      solved: this.success,
      endRow: rowOf(shape, this.position),
      endCol: colOf(shape, this.position),
      optimal: this.optimal,
      ...(failure === undefined ? {} : { failure }),
    };
  }
}

/**
 * Team (global) reward: 1 (+0.5 on a shortest path) when the goal is reached, otherwise up to
 * PLAN_PATH_REWARDS.progress for the share of the start-goal distance covered. Bounded in
 * [0, 1.5]; a pure function of the state.
 */
export function planPathGlobalReward(env: PlanPathEnv): number {
  if (env.success) return PLAN_PATH_REWARDS.goal + (env.optimal ? PLAN_PATH_REWARDS.optimalBonus : 0);
  const { distToGoal, optimal } = env.task;
  const covered = 1 - distToGoal[env.pos]! / optimal;
  return PLAN_PATH_REWARDS.progress * Math.max(0, covered);
}
