/**
 * Cuts a metrics file back to a checkpoint, so a resumed run appends exactly the records an
 * uninterrupted run would have written after it (the resumed file then equals the
 * uninterrupted one, timing fields aside).
 */
import { existsSync } from 'node:fs';
import { writeFileAtomic } from '../../engine/io/atomic-write.js';
import { readMetrics } from './read-metrics.js';
import type { MetricsRecord } from './types.js';

/**
 * Which step counter `afterStep` refers to. `rl`: drop train and eval records of RL steps
 * after it, keep all warm-start records (the warm start finished before RL began).
 * `warm-start`: drop warm-start records after it and every RL record (RL had not begun).
 */
export type MetricsPhase = 'rl' | 'warm-start';

function keeps(record: MetricsRecord, afterStep: number, phase: MetricsPhase): boolean {
  if (phase === 'rl') return record.kind === 'warm-start' || record.step <= afterStep;
  return record.kind === 'warm-start' && record.step <= afterStep;
}

export interface TruncateResult {
  readonly kept: number;
  readonly dropped: number;
  /** Warnings from reading the old file (a skipped cut-short last line). */
  readonly warnings: string[];
}

/**
 * Rewrites `path` atomically with the records at or before `afterStep` (use -1 to keep none of
 * that phase's steps; an `rl` eval at step -1, the base policy's, is kept at -1). A cut-short
 * last line is dropped too. A missing file is left missing (nothing had been logged yet).
 */
export function truncateMetrics(path: string, afterStep: number, phase: MetricsPhase = 'rl'): TruncateResult {
  if (!existsSync(path)) return { kept: 0, dropped: 0, warnings: [] };
  const { records, lines, warnings } = readMetrics(path);
  // Keep the original bytes of each kept line: a resumed file should equal an uninterrupted one.
  const kept = lines.filter((_line, i) => keeps(records[i]!, afterStep, phase));
  writeFileAtomic(path, kept.map((line) => `${line}\n`).join(''));
  return { kept: kept.length, dropped: records.length - kept.length, warnings };
}
