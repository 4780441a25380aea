/**
 * The toy task "count to a target": the smallest complete Troupe task, used by the rollout
 * tests and shown in docs/new-task.md. The team starts at 0 and must reach a seeded target
 * exactly; each role, on its move, adds 1 to MAX_STEP. Reaching the target solves the task,
 * going past it fails it for good.
 */
import type { Env } from '../types.js';

/** Largest amount one move may add. */
export const MAX_STEP = 3;

export class ToyEnv implements Env {
  readonly taskId: string;
  readonly target: number;
  value = 0;
  /**
   * Every move so far as `role+amount` (`role?` for an unreadable answer). Kept in the env so
   * prompts are a function of the env alone and clones carry it.
   */
  history: string[] = [];

  constructor(taskId: string, target: number) {
    this.taskId = taskId;
    this.target = target;
  }

  get done(): boolean {
    return this.value >= this.target;
  }

  get success(): boolean {
    return this.value === this.target;
  }

  clone(): this {
    const copy = new ToyEnv(this.taskId, this.target);
    copy.value = this.value;
    copy.history = [...this.history];
    return copy as this;
  }
}
