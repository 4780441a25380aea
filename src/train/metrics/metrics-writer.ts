/**
 * Appends records to a run's `metrics.jsonl`, one line per record, each line flushed to the
 * file before `write` returns: a run killed at any moment loses at most the line being
 * written, which the reader then skips.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { formatIssues } from '../../config/format-issues.js';
import { metricsRecordSchema } from './metrics-schema.js';
import type { MetricsRecord } from './types.js';

/**
 * One record as one JSON line (with its newline). NaN and Infinity become `null` ("not
 * measured"), and the line is checked against the schema the reader uses, so the trainer can
 * never write a file that it cannot read back on resume.
 */
export function serializeMetricsRecord(record: MetricsRecord): string {
  const line = JSON.stringify(record, (_key, value: unknown) =>
    typeof value === 'number' && !Number.isFinite(value) ? null : value,
  );
  const plain: unknown = JSON.parse(line);
  const checked = metricsRecordSchema.safeParse(plain);
  if (!checked.success) {
    const issues = formatIssues(checked.error.issues, plain, metricsRecordSchema)
      .map((i) => `${i.path}: ${i.message}`)
      .join('; ');
    throw new TroupeError('invariant', `internal invariant broken: a ${record.kind} metrics record at step ${record.step} is malformed (${issues})`);
  }
  return `${line}\n`;
}

/** Appends records to one metrics file; creates its folder on the first write. */
export class MetricsWriter {
  readonly path: string;
  private folderReady = false;

  constructor(path: string) {
    this.path = path;
  }

  write(record: MetricsRecord): void {
    const line = serializeMetricsRecord(record);
    try {
      if (!this.folderReady) mkdirSync(dirname(this.path), { recursive: true });
      this.folderReady = true;
      // appendFileSync opens, writes and closes: the line is in the file (OS cache) on return.
      appendFileSync(this.path, line);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new TroupeError('io', `could not append to ${this.path}: ${reason}; check that the run folder is writable and the disk is not full`, { cause: error });
    }
  }
}
