/**
 * Builds `report.html` in a run folder from the folder's `metrics.jsonl` and `config.yaml`.
 * Safe to call while a run is going (it reads what is there) and after it was killed (a
 * cut-short last metrics line is skipped and mentioned on the page).
 *
 *   writeReport('runs/plan-path');   // -> runs/plan-path/report.html
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import YAML from 'yaml';
import { TroupeError } from '../../util/errors.js';
import { writeFileAtomic } from '../../engine/io/atomic-write.js';
import { readMetrics } from '../metrics/read-metrics.js';
import { renderReport } from './render-report.js';

export interface WriteReportOptions {
  /** Page heading; default: the config's `name`, else the folder name. */
  readonly title?: string;
  /** Extra remarks for the top of the page. */
  readonly notes?: readonly string[];
}

function readConfig(path: string): unknown {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  try {
    return YAML.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TroupeError('io', `could not parse ${path}: ${reason}; the run folder's config.yaml is damaged`, { cause: error });
  }
}

/** Writes `runDir/report.html` atomically and returns its path. */
export function writeReport(runDir: string, options: WriteReportOptions = {}): string {
  const metricsPath = join(runDir, 'metrics.jsonl');
  if (!existsSync(metricsPath)) {
    throw new TroupeError('io', `no metrics.jsonl in ${runDir}; pass the folder of a training run (runs/<name>), which holds metrics.jsonl and config.yaml`);
  }
  const { records, warnings } = readMetrics(metricsPath);
  const configPath = join(runDir, 'config.yaml');
  const config = readConfig(configPath);
  const notes = [...warnings, ...(options.notes ?? [])];
  if (config === undefined) notes.push(`${configPath} is missing, so the config is not shown.`);
  const named = (config as { name?: unknown } | undefined)?.name;
  const title = options.title ?? (typeof named === 'string' && named.length > 0 ? named : basename(resolve(runDir)));
  const path = join(runDir, 'report.html');
  writeFileAtomic(path, renderReport({ title, config: config ?? {}, records, notes }));
  return path;
}
