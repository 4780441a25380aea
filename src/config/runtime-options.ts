/** Turns a resolved config into the option objects the envs and the rollout take. */
import type { TeamOptions } from '../envs/types.js';
import type { RolloutOptions } from '../rollout/types.js';
import type { ResolvedConfig } from './resolve-config.js';

export function teamOptions(config: ResolvedConfig): TeamOptions {
  const { variant, format, order, max_turns, alpha } = config.team;
  return { variant, format, order, maxTurns: max_turns, alpha };
}

export function rolloutOptions(config: ResolvedConfig): RolloutOptions {
  const r = config.rollout;
  const options: RolloutOptions = { mode: r.mode, k: r.k, temperature: r.temperature, topP: r.top_p, topK: r.top_k, maxTokens: r.max_tokens, stop: r.stop };
  if (r.mode === 'tree' && r.continue !== 'best') return { ...options, continueWith: r.continue };
  return r.mode === 'joint' ? { ...options, joint: config.magrpo } : options;
}

/** The task's own options: the `tasks` section without `name` and `module`. */
export function taskOptions(config: ResolvedConfig): Record<string, unknown> {
  const { name: _name, module: _module, ...options } = config.tasks;
  return options;
}
