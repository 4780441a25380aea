/** Batch-level numbers for the `rollout` command's summary (and, later, training metrics). */
import type { EpisodeStats, Sample } from './types.js';

export interface RoleSummary {
  samples: number;
  meanLocal: number;
  meanGlobal: number;
  meanTotal: number;
}

export interface RolloutSummary {
  episodes: number;
  successes: number;
  successRate: number;
  meanTurns: number;
  parseFailures: number;
  generationErrors: number;
  failures: number;
  samples: number;
  /** Per role, over all its samples (every branch in tree mode). */
  roles: Record<string, RoleSummary>;
}

export function summarizeRollout(samples: readonly Sample[], episodes: readonly EpisodeStats[]): RolloutSummary {
  const sum = (f: (e: EpisodeStats) => number) => episodes.reduce((acc, e) => acc + f(e), 0);
  const roles: Record<string, RoleSummary> = {};
  for (const s of samples) {
    const r = (roles[s.role] ??= { samples: 0, meanLocal: 0, meanGlobal: 0, meanTotal: 0 });
    r.samples += 1;
    r.meanLocal += s.reward.local;
    r.meanGlobal += s.reward.global;
    r.meanTotal += s.reward.total;
  }
  for (const r of Object.values(roles)) {
    r.meanLocal /= r.samples;
    r.meanGlobal /= r.samples;
    r.meanTotal /= r.samples;
  }
  const n = episodes.length;
  const successes = sum((e) => (e.success ? 1 : 0));
  return {
    episodes: n,
    successes,
    successRate: n === 0 ? 0 : successes / n,
    meanTurns: n === 0 ? 0 : sum((e) => e.turns) / n,
    parseFailures: sum((e) => e.parse_failures),
    generationErrors: sum((e) => e.generation_errors),
    failures: sum((e) => e.failures),
    samples: samples.length,
    roles,
  };
}
