/**
 * One run folder as `troupe compare` needs it: its metrics records and its last held-out
 * evaluation. Refuses, naming the folder and what is missing, anything that is not a run
 * (no folder, no metrics.jsonl) or a run without a held-out evaluation yet, since a table
 * with a silent gap would be read as a result.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { readMetrics } from '../metrics/read-metrics.js';
import type { EvalRecord, MetricsRecord } from '../metrics/types.js';

export interface ComparedRun {
  /** The folder's own name (the grouping reads it). */
  readonly name: string;
  /** The folder as given. */
  readonly dir: string;
  readonly records: readonly MetricsRecord[];
  /** The held-out evaluation at the highest step: the run's result so far. */
  readonly finalEval: EvalRecord & { readonly success_rate: number };
  /** A cut-short last metrics line, skipped (a run still writing, or killed). */
  readonly warnings: readonly string[];
}

export function readRun(dir: string): ComparedRun {
  if (!existsSync(dir)) throw new TroupeError('input', `${dir} does not exist; pass run folders that troupe train wrote, e.g. runs/plan-path`);
  if (!statSync(dir).isDirectory()) throw new TroupeError('input', `${dir} is a file, not a run folder; pass the folder that holds its metrics.jsonl (e.g. runs/plan-path)`);
  const metricsPath = join(dir, 'metrics.jsonl');
  if (!existsSync(metricsPath)) {
    const alsoConfig = existsSync(join(dir, 'config.yaml')) ? '' : ' and no config.yaml';
    throw new TroupeError('input', `${dir} is not a run folder: it has no metrics.jsonl${alsoConfig}, which troupe train writes there from its first step; pass run folders such as runs/plan-path`);
  }
  const { records, warnings } = readMetrics(metricsPath);
  const evals = records.filter((r): r is EvalRecord & { success_rate: number } => r.kind === 'eval' && typeof r.success_rate === 'number' && Number.isFinite(r.success_rate));
  const finalEval = evals.reduce<(typeof evals)[number] | undefined>((best, r) => (best === undefined || r.step >= best.step ? r : best), undefined);
  if (finalEval === undefined) {
    const trained = records.filter((r) => r.kind === 'train').length;
    throw new TroupeError(
      'input',
      `${dir} has no held-out evaluation yet (metrics.jsonl holds ${trained} RL step(s) and no eval record with a success rate); a run evaluates before its first step, every train.eval_every steps and at the end, so compare it once one is written`,
    );
  }
  return { name: basename(resolve(dir)), dir, records, finalEval, warnings };
}
