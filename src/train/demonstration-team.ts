/**
 * The team the warm start's scripted player demonstrates with: the run's own team, unless
 * `warm_start.order` / `warm_start.max_turns` ask for another turn order or turn limit (e.g.
 * a parallel MAGRPO team that learns from the sequential team's demonstrations, where plan
 * sees the tool's proposal; docs/magrpo.md). Roles and prompts come from the same task.
 */
import type { ResolvedConfig } from '../config/resolve-config.js';
import { taskOptions, teamOptions } from '../config/runtime-options.js';
import { taskOf } from '../config/task-of-config.js';
import type { Env, Team } from '../envs/types.js';

export interface DemonstrationTeam {
  readonly team: Team<Env>;
  /** What differs from the run's team (for the base's cache key); undefined when nothing does. */
  readonly key?: { readonly order: string; readonly max_turns: number };
}

export function demonstrationTeam(config: ResolvedConfig, runTeam: Team<Env>): DemonstrationTeam {
  const { order, max_turns } = config.warm_start;
  const options = teamOptions(config);
  const wanted = { ...options, order: order ?? options.order, maxTurns: max_turns ?? runTeam.maxTurns };
  if (wanted.order === runTeam.order && wanted.maxTurns === runTeam.maxTurns) return { team: runTeam };
  const team = taskOf(config).createTeam(taskOptions(config), wanted) as Team<Env>;
  return { team, key: { order: team.order, max_turns: team.maxTurns } };
}
