/** Per-episode counters, updated as samples are produced (see EpisodeStats in types.ts). */
import type { ParsedCompletion, StepResult } from './apply-completion.js';
import type { EpisodeStats } from './types.js';

export function newEpisodeStats(taskId: string, episode: number, roles: readonly string[]): EpisodeStats {
  const returns: Record<string, number> = {};
  for (const role of roles) returns[role] = 0;
  return { task_id: taskId, episode, success: false, turns: 0, parse_failures: 0, generation_errors: 0, failures: 0, returns };
}

/** Counts one sample's failures (every branch counts: failures are data, not noise). */
export function countFailures(stats: EpisodeStats, read: ParsedCompletion, result: StepResult): void {
  if (read.generationError) stats.generation_errors += 1;
  else if (!read.parsed.ok) stats.parse_failures += 1;
  if (result.failure !== undefined) stats.failures += 1;
}
