/**
 * Reads a JSON Lines file (one JSON object a line), plain or gzip-compressed (by the `.gz`
 * suffix or the gzip magic bytes). Blank lines are skipped. A line that is not a JSON object
 * is a TroupeError('input') naming the file and the 1-based line number, so a user can open
 * the file at the right place.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TroupeError } from '../util/errors.js';

export interface JsonlRow {
  /** 1-based line number in the (decompressed) file. */
  readonly line: number;
  readonly value: Record<string, unknown>;
}

export function readJsonlText(path: string): string {
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch (error) {
    // Relative paths (the examples' datasets/...) are read from the current folder, not the config's.
    const where = isAbsolute(path) ? '' : ` (relative to the current folder ${process.cwd()}: run from the folder the path is relative to, e.g. the Troupe repository for datasets/, or give an absolute path)`;
    throw new TroupeError('io', `cannot read dataset ${path}: ${(error as Error).message}; check tasks.path${where}`, { cause: error });
  }
  const gzipped = path.endsWith('.gz') || (raw[0] === 0x1f && raw[1] === 0x8b);
  if (!gzipped) return raw.toString('utf8');
  try {
    return gunzipSync(raw).toString('utf8');
  } catch (error) {
    throw new TroupeError('input', `${path}: not a valid gzip file (${(error as Error).message}); give a .jsonl or .jsonl.gz file`);
  }
}

export function readJsonl(path: string): JsonlRow[] {
  const rows: JsonlRow[] = [];
  readJsonlText(path)
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new TroupeError('input', `${path}:${i + 1}: not valid JSON (${(error as Error).message}); each line must be one JSON object`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new TroupeError('input', `${path}:${i + 1}: expected a JSON object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
      }
      rows.push({ line: i + 1, value: value as Record<string, unknown> });
    });
  if (rows.length === 0) throw new TroupeError('input', `${path}: no rows; a dataset needs at least one JSON line`);
  return rows;
}

/** A required string field of a row; the error names the file, line and field. */
export function stringField(path: string, row: JsonlRow, field: string, options: { optional?: boolean } = {}): string | undefined {
  const value = row.value[field];
  if (value === undefined && options.optional) return undefined;
  if (typeof value !== 'string') {
    const got = value === undefined ? 'it is missing' : `got ${JSON.stringify(value).slice(0, 40)}`;
    throw new TroupeError('input', `${path}:${row.line}: field "${field}" must be a string, ${got}`);
  }
  return value;
}

/** Writes rows as JSON Lines (used to save the built-in synthetic sets). */
export function toJsonl(rows: readonly object[]): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}
