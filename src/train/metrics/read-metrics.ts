/**
 * Reads a run's `metrics.jsonl` back (for the report, for resume). A run killed while writing
 * leaves its last line cut short: that line is skipped with a warning. Anything wrong before
 * the last line means the file was damaged some other way, so reading fails and names the line.
 */
import { readFileSync } from 'node:fs';
import { TroupeError } from '../../util/errors.js';
import { formatIssues } from '../../config/format-issues.js';
import { metricsRecordSchema } from './metrics-schema.js';
import type { MetricsRecord } from './types.js';

export interface MetricsFile {
  readonly records: MetricsRecord[];
  /** Each record's line exactly as read (no newline), so rewriting keeps the bytes. */
  readonly lines: string[];
  /** Things worth telling the user that did not stop the read (a skipped cut-short last line). */
  readonly warnings: string[];
}

/** Parses the text of a metrics file; `source` names it in messages. */
export function parseMetrics(text: string, source = 'metrics.jsonl'): MetricsFile {
  const lines = text.split('\n');
  // The index of the last line with content: only that one may be cut short.
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === '') last -= 1;
  const records: MetricsRecord[] = [];
  const kept: string[] = [];
  const warnings: string[] = [];
  for (let i = 0; i <= last; i += 1) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const where = `${source}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (i === last) {
        warnings.push(`${where}: skipped the last line, which is cut short (the run was probably stopped while writing it)`);
        continue;
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new TroupeError(
        'io',
        `${where} is not valid JSON (${reason}) and is not the last line, so the file was damaged, not just cut short; repair or delete that line`,
      );
    }
    const checked = metricsRecordSchema.safeParse(value);
    if (!checked.success) {
      const issues = formatIssues(checked.error.issues, value, metricsRecordSchema)
        .map((issue) => `${issue.path}: ${issue.message}`)
        .join('; ');
      throw new TroupeError(
        'io',
        `${where} is not a metrics record (${issues}); each line must be one object with kind train, eval or warm-start; repair or delete that line`,
      );
    }
    records.push(checked.data);
    kept.push(line);
  }
  return { records, lines: kept, warnings };
}

/** Reads and parses a metrics file. */
export function readMetrics(path: string): MetricsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TroupeError('io', `could not read metrics file ${path}: ${reason}; pass a run folder that a training run wrote`, { cause: error });
  }
  return parseMetrics(text, path);
}
