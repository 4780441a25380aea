/**
 * MAGRPO's 4-level reward of an aux + main pair (SEEDS.md section 2), as a pure function of
 * the sandbox's analysis and test counts. Levels are cumulative and a failed gate stops:
 *
 * 1. structure (up to 1.0): aux defined with a return +0.4; main defined with a return +0.6;
 *    without main there is nothing to test: stop.
 * 2. syntax (0.5): the combined program (prompt + aux + main) compiles; else stop.
 * 3. tests (up to 1.0): passed / total asserts of `check`.
 * 4. cooperation (up to 1.5), only when at least one assert passed and aux is defined:
 *    main calls aux +0.5; main calls aux and is more than a thin wrapper around it +1.0;
 *    main calls aux somewhere as a bare statement (result discarded) -0.5.
 *
 * The weights are task options (`tasks.reward`), defaults as published (max 4.0).
 */
import { z } from 'zod';
import type { CoopAnalysis } from './analysis-script.js';

export const coopRewardWeightsSchema = z
  .strictObject({
    aux_defined: z.number().default(0.4),
    main_defined: z.number().default(0.6),
    syntax: z.number().default(0.5),
    tests: z.number().default(1.0),
    calls_aux: z.number().default(0.5),
    not_thin_wrapper: z.number().default(1.0),
    discarded_result: z.number().default(-0.5),
  })
  .prefault({});
export type CoopRewardWeights = z.infer<typeof coopRewardWeightsSchema>;

export interface CoopRewardParts {
  readonly structure: number;
  readonly syntax: number;
  readonly tests: number;
  readonly cooperation: number;
  readonly total: number;
  /** The level the evaluation stopped at, if it stopped. */
  readonly stoppedAt?: 'structure' | 'syntax';
}

export function coopReward(
  analysis: Omit<CoopAnalysis, 'asserts'>,
  tests: { passed: number; total: number },
  w: CoopRewardWeights,
): CoopRewardParts {
  const structure = (analysis.aux_defined ? w.aux_defined : 0) + (analysis.main_defined ? w.main_defined : 0);
  if (!analysis.main_defined) return { structure, syntax: 0, tests: 0, cooperation: 0, total: structure, stoppedAt: 'structure' };
  if (!analysis.syntax_ok) return { structure, syntax: 0, tests: 0, cooperation: 0, total: structure, stoppedAt: 'syntax' };
  const syntax = w.syntax;
  const testScore = tests.total > 0 ? (w.tests * tests.passed) / tests.total : 0;
  let cooperation = 0;
  if (tests.passed > 0 && analysis.aux_defined && analysis.calls_aux) {
    cooperation += w.calls_aux;
    if (!analysis.thin_wrapper) cooperation += w.not_thin_wrapper;
    if (analysis.discarded) cooperation += w.discarded_result;
  }
  return { structure, syntax, tests: testScore, cooperation, total: structure + syntax + testScore + cooperation };
}
