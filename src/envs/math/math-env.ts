/**
 * The live state of one `math` task (SEEDS.md, Math): the problem, the tool agent's programs
 * with what they printed, the reasoning agent's answers. The episode ends when the two latest
 * answers agree (or, for the single reasoning agent, once it has answered); success = the
 * reasoning answer is correct.
 */
import type { MathProblem } from '../../datasets/math-problem.js';
import type { RunResult } from '../../sandbox/types.js';
import type { SandboxMemo } from '../code/shared-sandbox.js';
import type { Env } from '../types.js';
import { answersEqual } from './answer-check.js';

export interface ToolAttempt {
  readonly program: string;
  /** The last non-empty line the program printed, or null when it printed nothing or failed. */
  readonly answer: string | null;
  /** What to show the agents: the output's end, or why the run failed. */
  readonly shown: string;
}

export interface ReasoningAttempt {
  /** The answer in \boxed{}, or null when none was given. */
  readonly answer: string | null;
  /** The end of the reasoning text, for the other agent to read. */
  readonly excerpt: string;
}

export class MathEnv implements Env {
  readonly taskId: string;
  readonly problem: MathProblem;
  readonly memo: SandboxMemo<RunResult>;
  tool: ToolAttempt[] = [];
  reasoning: ReasoningAttempt[] = [];
  /** Set by the single agent's answer: with no tool there is nothing to agree with. */
  answeredAlone = false;

  constructor(taskId: string, problem: MathProblem, memo: SandboxMemo<RunResult>) {
    this.taskId = taskId;
    this.problem = problem;
    this.memo = memo;
  }

  get toolAnswer(): string | null {
    return this.tool.at(-1)?.answer ?? null;
  }

  get reasoningAnswer(): string | null {
    return this.reasoning.at(-1)?.answer ?? null;
  }

  get agreed(): boolean {
    const [t, r] = [this.toolAnswer, this.reasoningAnswer];
    return t !== null && r !== null && answersEqual(t, r);
  }

  get success(): boolean {
    const r = this.reasoningAnswer;
    return r !== null && answersEqual(r, this.problem.answer);
  }

  get done(): boolean {
    return this.agreed || this.answeredAlone;
  }

  clone(): this {
    const copy = new MathEnv(this.taskId, this.problem, this.memo);
    copy.tool = [...this.tool];
    copy.reasoning = [...this.reasoning];
    copy.answeredAlone = this.answeredAlone;
    return copy as this;
  }
}
