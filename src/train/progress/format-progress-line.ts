/**
 * The one-line training status, e.g.
 *   step 12/50 [##........] 24% ETA 3m10s success 62% (eval 58%) reward tool 0.41 plan 0.72 2.1 samples/s
 * Pure: the display decides where and how often it is written. When the terminal is narrow,
 * the least important parts go first (throughput, rewards, the bar, eval), then the line is cut.
 */
import { formatDuration } from './format-duration.js';

export interface ProgressState {
  /** What is counted: `step` for RL, `warm-start` for supervised steps. */
  readonly label?: string;
  /** Steps finished so far (including those done before a resume). */
  readonly done: number;
  readonly total: number;
  /** Seconds left; omitted while unknown. */
  readonly etaSeconds?: number;
  /** Latest training success rate (0..1). */
  readonly success?: number | null;
  /** Latest held-out success rate (0..1). */
  readonly evalSuccess?: number | null;
  /** Latest mean total reward per role. */
  readonly rewards?: Readonly<Record<string, number | null>>;
  readonly samplesPerS?: number | null;
  /** A warm-start loss or other single number worth showing, e.g. `loss 0.83`. */
  readonly extra?: string;
}

const has = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

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
    { text: `${state.label ?? 'step'} ${state.done}/${state.total}`, dropRank: 0 },
    { text: progressBar(fraction, barWidth), dropRank: 3 },
    { text: `${Math.floor(Math.min(1, fraction) * 100)}%`, dropRank: 0 },
    { text: `ETA ${state.etaSeconds === undefined ? '?' : formatDuration(state.etaSeconds)}`, dropRank: 0 },
  ];
  if (state.extra) out.push({ text: state.extra, dropRank: 0 });
  if (has(state.success)) out.push({ text: `success ${formatPercent(state.success)}`, dropRank: 0 });
  if (has(state.evalSuccess)) out.push({ text: `(eval ${formatPercent(state.evalSuccess)})`, dropRank: 2 });
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
