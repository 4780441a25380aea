/**
 * Appends records to a run's `metrics.jsonl`, one line per record, each line in the file
 * before `write` returns. A full disk never leaves a torn last line (a failed write is cut back
 * off); a run killed mid-write can at most lose the line being written, which the reader skips.
 */
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
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
    const line = Buffer.from(serializeMetricsRecord(record));
    try {
      if (!this.folderReady) mkdirSync(dirname(this.path), { recursive: true });
      this.folderReady = true;
      appendWhole(this.path, line);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new TroupeError('io', `could not append to ${this.path}: ${reason}; check that the run folder is writable and the disk is not full`, { cause: error });
    }
  }
}

/**
 * Appends `line` with one write, or not at all: a full disk can take part of a write (the
 * bytes that fit), so a short or failed write is cut back off (truncate to the old length)
 * before the error goes up. The file then ends with the last whole record, never a torn line.
 * The line is in the file (OS cache) when this returns.
 */
function appendWhole(path: string, line: Buffer): void {
  const fd = openSync(path, 'a');
  try {
    const before = fstatSync(fd).size;
    let written = 0;
    try {
      written = writeSync(fd, line);
    } catch (error) {
      ftruncateSync(fd, before);
      throw error;
    }
    if (written !== line.length) {
      ftruncateSync(fd, before);
      throw Object.assign(new Error(`ENOSPC: only ${written} of the record's ${line.length} bytes fit (no space left on device?)`), { code: 'ENOSPC' });
    }
  } finally {
    closeSync(fd);
  }
}
