/**
 * The roles of the toy task. Every role plays the same way (add 1..MAX_STEP); the team variant
 * has two of them (`tool` then `plan`) so rollouts exercise multi-role turns, the single
 * variant one (`agent`). The prompt shows the whole move history, so in sequential turns a
 * role sees what the roles before it did in the same turn.
 */
import type { ParseResult, Role, StepOutcome, TeamOptions } from '../types.js';
import { MAX_STEP, type ToyEnv } from './toy-env.js';

/** Local reward per unit added (progress), for an overshoot, and for an unreadable answer. */
export const STEP_REWARD = 0.1;
export const OVERSHOOT_PENALTY = -1;
export const PARSE_PENALTY = -0.2;

/** Compact prompts end with this marker line, where the model writes its answer. */
export const ANSWER_MARKER = 'A:';

function compactPrompt(role: string, env: ToyEnv): string {
  // e.g. "T7 V3 H TOOL+1 PLAN+2\nPLAN A:". Upper case: the small models' character tokenizer
  // has no lower-case letters, and `tool` and `plan` would both read as four unknown tokens.
  const history = env.history.length > 0 ? ` H ${env.history.join(' ').toUpperCase()}` : '';
  return `T${env.target} V${env.value}${history}\n${role.toUpperCase()} ${ANSWER_MARKER}`;
}

function naturalPrompt(role: string, env: ToyEnv): string {
  const moves = env.history.length > 0 ? env.history.join(', ') : 'none';
  return [
    `You are the ${role} agent of a team that counts from 0 up to a target.`,
    `Target: ${env.target}. Current value: ${env.value}. Moves so far: ${moves}.`,
    `Reply with one digit from 1 to ${MAX_STEP}: the amount to add. Going past the target loses.`,
  ].join('\n');
}

/** Reads the first digit of the answer's first line; anything else is a parse failure. */
export function parseToyAction(text: string): ParseResult<number> {
  const line = (text.split('\n')[0] ?? '').trim();
  const match = /^(\d)\b/.exec(line);
  const amount = match ? Number(match[1]) : NaN;
  if (!(amount >= 1 && amount <= MAX_STEP)) {
    return { ok: false, reason: `expected a digit 1-${MAX_STEP}, got ${JSON.stringify(line.slice(0, 20))}` };
  }
  return { ok: true, action: amount };
}

export function createToyRole(name: string, format: TeamOptions['format']): Role<ToyEnv, number> {
  return {
    name,
    prompt: (env) => (format === 'compact' ? compactPrompt(name, env) : naturalPrompt(name, env)),
    parse: parseToyAction,
    step(env, action): StepOutcome {
      if (!action.ok) {
        env.history.push(`${name}?`);
        return { local: PARSE_PENALTY, failure: `parse: ${action.reason}` };
      }
      env.value += action.action;
      env.history.push(`${name}+${action.action}`);
      if (env.value > env.target) {
        return { local: OVERSHOOT_PENALTY, failure: `overshot the target ${env.target}`, info: { value: env.value } };
      }
      return { local: STEP_REWARD * action.action, info: { value: env.value } };
    },
  };
}
