/**
 * The `math` task (SEEDS.md, Math): a tool agent writes a program that prints the answer
 * (sandboxed), a reasoning agent answers in \boxed{}; from turn 2 each sees both histories;
 * the episode ends when their answers agree; success = the reasoning answer is correct
 * (answer-check.ts decides equality). `team.variant: single` is the reasoning agent alone.
 * Problems: math JSONL (`tasks.path`) or the built-in synthetic word problems.
 */
import { z } from 'zod';
import { readMathProblems } from '../../datasets/math-problem.js';
import { problemSet } from '../../datasets/problem-set.js';
import { syntheticMathProblem } from '../../datasets/synthetic-math.js';
import type { RunResult } from '../../sandbox/types.js';
import { SandboxMemo } from '../code/shared-sandbox.js';
import { problemSource } from '../code/problem-source.js';
import type { TaskDefinition, Team } from '../types.js';
import { MathEnv } from './math-env.js';
import { mathReferencePlayer, scriptedMathPlayer } from './math-players.js';
import { createReasoningRole, createToolRole } from './math-roles.js';

export const mathOptionsSchema = z.strictObject({
  /** Math JSONL (question, answer); absent = built-in synthetic word problems. */
  path: z.string().min(1).optional(),
  /** Eval split file; absent = the eval split reads `path` too (benchmark use). */
  eval_path: z.string().min(1).optional(),
});
export type MathOptions = z.infer<typeof mathOptionsSchema>;

function problems(options: MathOptions, seed: number) {
  return problemSet({
    path: options.path,
    evalPath: options.eval_path,
    read: readMathProblems,
    synthetic: (split, index) => syntheticMathProblem(seed, split, index),
  });
}

/** 1 when the reasoning answer is correct, else 0. */
export const mathGlobalReward = (env: MathEnv): number => (env.success ? 1 : 0);

export const mathTask: TaskDefinition<MathEnv, MathOptions> = {
  name: 'math',
  description: 'Tool agent (program prints the answer, sandboxed) + reasoning agent (\\boxed{}); ends when they agree.',
  optionsSchema: mathOptionsSchema,
  defaultMaxTurns: 3,
  teamRoles: ['tool', 'reasoning'],
  createSource(options, seed) {
    const memo = new SandboxMemo<RunResult>();
    return problemSource({ task: 'math', set: problems(options, seed), make: (problem, taskId) => new MathEnv(taskId, problem, memo) });
  },
  createTeam(_options, team): Team<MathEnv> {
    const roles = team.variant === 'team' ? [createToolRole(team.format), createReasoningRole('reasoning', team.format)] : [createReasoningRole('agent', team.format)];
    return { name: `math-${team.variant}`, roles, order: team.order, maxTurns: team.maxTurns, alpha: team.alpha, globalReward: mathGlobalReward };
  },
  scripted: scriptedMathPlayer,
  createReference: (options, seed) => mathReferencePlayer(problems(options, seed)),
};
