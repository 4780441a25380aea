/**
 * The one-line training status, e.g.
 *   step 11 (12/50) [##........] 24% ETA 3m10s held-out 58% (step 9) tree success 100% reward tool 0.41 plan 0.72 2.1 samples/s
 * Steps are named as everywhere else (checkpoints/step-000011, rollouts/step-000011.jsonl,
 * metrics.jsonl, the report): from 0, so `step 11` is the twelfth update, and `(12/50)` counts
 * the steps done. `held-out 58% (step 9)` was measured after step 9's update.
 * Each success number is named for whose play it measures: `held-out` is the sampled policy on
 * eval tasks (the number that matters, with the step it was measured after), `tree success`
 * the best-branch search on this step's training tasks, `policy success` the sampled policy on
 * them (independent mode). Pure: the display decides where and how often it is written. When
 * the terminal is narrow, the least important parts go first (throughput, rewards, the bar,
 * the training success), then the line is cut.
 */
import type { SuccessOf } from '../metrics/types.js';
import { trainSuccessName } from '../metrics/success-of.js';
import { formatDuration } from './format-duration.js';

export interface ProgressState {
  /** What is counted: `step` for RL, `warm-start` for supervised steps. */
  readonly label?: string;
  /** Steps finished so far (including those done before a resume). */
  readonly done: number;
  readonly total: number;
  /** Seconds left; omitted while unknown. */
  readonly etaSeconds?: number;
  /** Latest training success rate (0..1), measured on the step's rollouts. */
  readonly success?: number | null;
  /** Whose play `success` measures; absent (an old metrics file): shown as `train success`. */
  readonly successOf?: SuccessOf;
  /** Latest held-out success rate (0..1): the sampled policy on eval tasks. */
  readonly evalSuccess?: number | null;
  /** The eval record's step: -1 = the base policy, s = after the update of step s. */
  readonly evalStep?: number;
  /** Latest mean total reward per role. */
  readonly rewards?: Readonly<Record<string, number | null>>;
  readonly samplesPerS?: number | null;
  /** A warm-start loss or other single number worth showing, e.g. `loss 0.83`. */
  readonly extra?: string;
}

const has = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** `(base)` for the eval before RL, else `(step N)`: measured after step N's update (steps count from 0). */
export function evalWhen(evalStep: number): string {
  return evalStep < 0 ? '(base)' : `(step ${evalStep})`;
}

export function formatPercent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

export function formatRate(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : String(Number(x.toFixed(2)));
}

/** `[####......]`: `width` cells inside the brackets, filled in proportion to `fraction`. */
export function progressBar(fraction: number, width: number): string {
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const filled = Math.floor(f * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

interface Part {
  readonly text: string;
  /** Higher is dropped first when the line is too wide; 0 is never dropped. */
  readonly dropRank: number;
}

function parts(state: ProgressState, barWidth: number): Part[] {
  const fraction = state.total > 0 ? state.done / state.total : 0;
  const out: Part[] = [
    { text: `${state.label ?? 'step'} ${state.done > 0 ? `${state.done - 1} ` : ''}(${state.done}/${state.total})`, dropRank: 0 },
    { text: progressBar(fraction, barWidth), dropRank: 3 },
    { text: `${Math.floor(Math.min(1, fraction) * 100)}%`, dropRank: 0 },
    { text: `ETA ${state.etaSeconds === undefined ? '?' : formatDuration(state.etaSeconds)}`, dropRank: 0 },
  ];
  if (state.extra) out.push({ text: state.extra, dropRank: 0 });
  if (has(state.evalSuccess)) {
    const when = state.evalStep === undefined ? '' : ` ${evalWhen(state.evalStep)}`;
    out.push({ text: `held-out ${formatPercent(state.evalSuccess)}${when}`, dropRank: 0 });
  }
  if (has(state.success)) out.push({ text: `${trainSuccessName(state.successOf)} ${formatPercent(state.success)}`, dropRank: 2 });
  const rewards = Object.entries(state.rewards ?? {}).filter((e): e is [string, number] => has(e[1]));
  if (rewards.length > 0) {
    out.push({ text: `reward ${rewards.map(([role, r]) => `${role} ${r.toFixed(2)}`).join(' ')}`, dropRank: 4 });
  }
  if (has(state.samplesPerS)) out.push({ text: `${formatRate(state.samplesPerS)} samples/s`, dropRank: 5 });
  return out;
}

/**
 * The status line, at most `width` characters (use `Infinity` for log files). Terminals wrap a
 * line that fills the last column, so callers writing to a TTY pass `columns - 1`.
 */
export function formatProgressLine(state: ProgressState, width = Infinity, barWidth = 10): string {
  let kept = parts(state, barWidth);
  const join = (list: readonly Part[]) => list.map((p) => p.text).join(' ');
  while (join(kept).length > width) {
    const worst = Math.max(...kept.map((p) => p.dropRank));
    if (worst === 0) break;
    kept = kept.filter((p) => p.dropRank !== worst);
  }
  const line = join(kept);
  if (line.length <= width) return line;
  return width <= 3 ? line.slice(0, Math.max(0, width)) : `${line.slice(0, width - 3)}...`;
}
