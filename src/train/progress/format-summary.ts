/**
 * The line printed when a run (or its warm start) ends, e.g.
 *   done 50/50 steps in 12m03s: held-out 82% (95% CI 76-87%, n=200), tree success 100% on the last step, 2.3 samples/s
 * The numbers are named as on the progress line (format-progress-line.ts): held-out first.
 */
import type { SuccessOf } from '../metrics/types.js';
import { formatDuration } from './format-duration.js';
import { trainSuccessName } from '../metrics/success-of.js';
import { formatPercent, formatRate } from './format-progress-line.js';

export interface ProgressSummary {
  readonly label?: string;
  readonly done: number;
  readonly total: number;
  readonly elapsedSeconds: number;
  /** The last step's training success, and whose play it measures. */
  readonly success?: number | null;
  readonly successOf?: SuccessOf;
  readonly eval?: { readonly success: number | null; readonly ciLow?: number | null; readonly ciHigh?: number | null; readonly n?: number };
  readonly samplesPerS?: number | null;
  /** Why the run ended early, if it did (`stopped by Ctrl-C`). */
  readonly stopped?: string;
}

const has = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

export function formatSummary(s: ProgressSummary): string {
  const unit = s.label === undefined || s.label === 'step' ? 'steps' : `${s.label} steps`;
  const head = `${s.stopped ? 'stopped at' : 'done'} ${s.done}/${s.total} ${unit} in ${formatDuration(s.elapsedSeconds)}`;
  const facts: string[] = [];
  if (s.eval && has(s.eval.success)) {
    const detail: string[] = [];
    if (has(s.eval.ciLow) && has(s.eval.ciHigh)) {
      detail.push(`95% CI ${Math.round(s.eval.ciLow * 100)}-${formatPercent(s.eval.ciHigh)}`);
    }
    if (s.eval.n !== undefined) detail.push(`n=${s.eval.n}`);
    facts.push(`held-out ${formatPercent(s.eval.success)}${detail.length ? ` (${detail.join(', ')})` : ''}`);
  }
  if (has(s.success)) facts.push(`${trainSuccessName(s.successOf)} ${formatPercent(s.success)} on the last step`);
  if (has(s.samplesPerS)) facts.push(`${formatRate(s.samplesPerS)} samples/s`);
  const tail = s.stopped ? ` (${s.stopped})` : '';
  return `${head}${tail}${facts.length ? `: ${facts.join(', ')}` : ''}`;
}
