/**
 * The roles of coop-code. Team variant: `aux` and `main` (MAGRPO; parallel turns by
 * default). Each role's action replaces its own function; the pair is evaluated in the
 * sandbox (analysis + asserts, memoised) and scored with the 4-level reward, which is the
 * team's global reward. MAGRPO has no per-agent reward, so local rewards are 0.
 * Single variant: `agent` writes a HumanEval completion; local = passed / total asserts.
 * `prepare` does all sandbox and advice work; `step` only reads results back. Every sample
 * short of full credit carries a failure reason (coop-failure.ts).
 */
import type { ParseResult, Role, StepOutcome, TeamOptions, TurnContext } from '../types.js';
import { sharedSandbox } from '../code/shared-sandbox.js';
import { extractCode } from '../code/extract-code.js';
import { adviceKey, completionKey, jointKey, type CoopCodeEnv } from './coop-env.js';
import { pairFailure, testsFailure } from './coop-failure.js';
import { coopPrompt, feedbackText } from './coop-prompts.js';
import { coopReward } from './coop-reward.js';
import { evaluateCompletion, evaluateCoop, type CoopEvaluation, type TestOutcome } from './evaluate-coop.js';

type Slot = 'aux' | 'main';

function parseCode(text: string): ParseResult<string> {
  const code = extractCode(text);
  return code === undefined ? { ok: false, reason: 'no code found in the answer' } : { ok: true, action: code };
}

/** The pair after `slot` plays `code` (an unreadable answer leaves that function empty). */
function pairAfter(env: CoopCodeEnv, slot: Slot, action: ParseResult<string>): { aux: string; main: string } {
  const code = action.ok ? action.action : '';
  return { aux: slot === 'aux' ? code : (env.aux ?? ''), main: slot === 'main' ? code : (env.main ?? '') };
}

const wantsAdvice = (env: CoopCodeEnv, ctx: TurnContext) =>
  env.shared.transition === 'advice' && env.shared.advice !== undefined && ctx.turn + 1 < ctx.maxTurns;

function scoreOf(env: CoopCodeEnv, ev: CoopEvaluation) {
  const analysis = ev.analysis ?? { aux_defined: false, main_defined: false, syntax_ok: false, calls_aux: false, thin_wrapper: false, discarded: false };
  return coopReward(analysis, ev.tests, env.shared.weights);
}

export function createPairRole(slot: Slot, format: TeamOptions['format']): Role<CoopCodeEnv, string> {
  return {
    name: slot,
    prompt: (env) => coopPrompt(slot, env, format),
    parse: parseCode,
    async prepare(env, action, ctx) {
      const { aux, main } = pairAfter(env, slot, action);
      const { memo } = env.shared;
      const ev = (await memo.ensure(jointKey(env, aux, main), () => evaluateCoop(sharedSandbox(), env.problem, aux, main))) as CoopEvaluation;
      if (wantsAdvice(env, ctx)) {
        const reward = scoreOf(env, ev);
        await memo.ensure(adviceKey(env, aux, main), () =>
          env.shared.advice!.advise({ problem: env.problem.prompt, aux, main, feedback: feedbackText(ev.tests, reward.stoppedAt) }).catch(
            (error: unknown) => `(advice unavailable: ${(error as Error).message})`,
          ),
        );
      }
    },
    step(env, action, ctx): StepOutcome {
      const { aux, main } = pairAfter(env, slot, action);
      env.aux = aux;
      env.main = main;
      const ev = env.shared.memo.get(jointKey(env, aux, main), `${env.taskId} ${slot}`) as CoopEvaluation;
      env.evaluation = ev;
      env.reward = scoreOf(env, ev);
      let failure = action.ok ? pairFailure(slot, ev, env.problem.entryPoint) : `parse: ${action.reason}`;
      const feedback = feedbackText(ev.tests, env.reward.stoppedAt);
      if (wantsAdvice(env, ctx)) {
        const advice = env.shared.memo.get(adviceKey(env, aux, main), 'advice') as string;
        if (advice.startsWith('(advice unavailable')) failure ??= advice;
        env.transitionText = `${feedback.split('\n')[0]}\nAdvice: ${advice}`;
      } else {
        env.transitionText = feedback;
      }
      if (!action.ok) env.notes.push(`${slot}: answer had no code`);
      const { structure, syntax, tests, cooperation, total } = env.reward;
      return {
        local: 0,
        info: { structure, syntax, tests, cooperation, total, passed: ev.tests.passed, asserts: ev.tests.total },
        ...(failure ? { failure } : {}),
      };
    },
  };
}

export function createCompletionRole(format: TeamOptions['format']): Role<CoopCodeEnv, string> {
  return {
    name: 'agent',
    prompt: (env) => coopPrompt('agent', env, format),
    parse: parseCode,
    async prepare(env, action) {
      if (!action.ok) return;
      const code = action.action;
      await env.shared.memo.ensure(completionKey(env, code), () => evaluateCompletion(sharedSandbox(), env.problem, code));
    },
    step(env, action): StepOutcome {
      if (!action.ok) {
        env.notes.push('agent: answer had no code');
        return { local: 0, failure: `parse: ${action.reason}` };
      }
      env.completion = action.action;
      const tests = env.shared.memo.get(completionKey(env, action.action), `${env.taskId} agent`) as TestOutcome;
      env.single = tests;
      env.transitionText = feedbackText(tests);
      const failure = testsFailure(tests);
      return {
        local: tests.total > 0 ? tests.passed / tests.total : 0,
        info: { passed: tests.passed, asserts: tests.total, reason: tests.reason },
        ...(failure ? { failure } : {}),
      };
    },
  };
}
