/**
 * The `code` task (SEEDS.md, Code): a coder writes a stdin -> stdout program, a tester writes
 * test cases; from turn 2 each sees the mismatches between the cases and the program (run in
 * the sandbox); success = the program passes the hidden tests. `team.variant: single` is the
 * coder alone. Problems come from `tasks.path` (stdin/stdout JSONL) or the built-in
 * synthetic set. docs/tasks.md has the prompts and rewards.
 */
import { z } from 'zod';
import { problemSet } from '../../datasets/problem-set.js';
import { readStdioProblems } from '../../datasets/stdio-problem.js';
import { syntheticStdioProblem } from '../../datasets/synthetic-stdio.js';
import type { TaskDefinition, Team } from '../types.js';
import { CodeEnv } from './code-env.js';
import { codeReferencePlayer, scriptedCodePlayer } from './code-players.js';
import { createCoderRole, createTesterRole } from './code-roles.js';
import { problemSource } from './problem-source.js';
import type { CaseResult } from './run-stdio-batch.js';
import { SandboxMemo } from './shared-sandbox.js';

export const codeOptionsSchema = z.strictObject({
  /** Stdin/stdout JSONL (question, tests, optional solution); absent = built-in synthetic set. */
  path: z.string().min(1).optional(),
  /** Eval split file; absent = the eval split reads `path` too (benchmark use). */
  eval_path: z.string().min(1).optional(),
});
export type CodeOptions = z.infer<typeof codeOptionsSchema>;

function problems(options: CodeOptions, seed: number) {
  return problemSet({
    path: options.path,
    evalPath: options.eval_path,
    read: readStdioProblems,
    synthetic: (split, index) => syntheticStdioProblem(seed, split, index),
  });
}

/** The share of hidden tests the current program passes (1 = solved). */
export function codeGlobalReward(env: CodeEnv): number {
  return env.code === null ? 0 : env.hiddenPassed / env.problem.tests.length;
}

export const codeTask: TaskDefinition<CodeEnv, CodeOptions> = {
  name: 'code',
  description: 'Coder writes a stdin->stdout program, tester writes test cases; mismatches fed back (sandboxed).',
  optionsSchema: codeOptionsSchema,
  defaultMaxTurns: 2,
  teamRoles: ['coder', 'tester'],
  createSource(options, seed) {
    const memo = new SandboxMemo<CaseResult[]>();
    return problemSource({ task: 'code', set: problems(options, seed), make: (problem, taskId) => new CodeEnv({ taskId, problem, memo }) });
  },
  createTeam(_options, team): Team<CodeEnv> {
    const roles = team.variant === 'team' ? [createCoderRole('coder', team.format, false), createTesterRole(team.format)] : [createCoderRole('agent', team.format, true)];
    return { name: `code-${team.variant}`, roles, order: team.order, maxTurns: team.maxTurns, alpha: team.alpha, globalReward: codeGlobalReward };
  },
  scripted: scriptedCodePlayer,
  createReference: (options, seed) => codeReferencePlayer(problems(options, seed)),
};
