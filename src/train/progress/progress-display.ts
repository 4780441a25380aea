/**
 * Shows training progress on a terminal. On a TTY one line is redrawn in place (`\r`), fitted
 * to the terminal's width; elsewhere (CI logs, a file) a plain line is printed every `every`
 * steps so logs stay short. Messages printed through `log` appear above the live line.
 * The stream and the clock are injected, so tests drive it without a terminal or waiting.
 *
 *   const progress = new ProgressDisplay({ stream: process.stderr, total: 50 });
 *   for (...) { ...; progress.update(progressFromRecords(record, lastEval)); }
 *   progress.finish({ eval: { success: 0.82, ciLow: 0.76, ciHigh: 0.87, n: 200 } });
 */
import { estimateEta } from './estimate-eta.js';
import { formatProgressLine, type ProgressState } from './format-progress-line.js';
import { formatSummary, type ProgressSummary } from './format-summary.js';

/** The part of a Node write stream the display uses (`process.stderr` fits). */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** Terminal width; read on every draw so resizing is followed. */
  readonly columns?: number;
}

export interface ProgressOptions {
  readonly stream: ProgressStream;
  /** Steps in the whole run. */
  readonly total: number;
  /** `step` (RL) or `warm-start`. */
  readonly label?: string;
  /** Steps already done before this process started (a resumed run). */
  readonly startAt?: number;
  /** When not a TTY: print a line every this many steps (and at the last one). Default 10. */
  readonly every?: number;
  /** Step times averaged for the ETA. Default 10. */
  readonly window?: number;
  /** Milliseconds, monotonic. Default `performance.now`. */
  readonly clock?: () => number;
}

/** What changes between updates: everything of the line except the counters and the ETA. */
export type ProgressUpdate = Omit<ProgressState, 'label' | 'total' | 'etaSeconds'>;

const CLEAR_LINE = '\r\x1b[K';

export class ProgressDisplay {
  private readonly options: ProgressOptions;
  private readonly clock: () => number;
  private readonly startMs: number;
  private readonly stepSeconds: number[] = [];
  private lastDone: number;
  private lastMs: number;
  private latest: ProgressUpdate | undefined;
  /** Text of the live line on a TTY ('' when nothing is drawn). */
  private drawn = '';

  constructor(options: ProgressOptions) {
    this.options = options;
    this.clock = options.clock ?? (() => performance.now());
    this.startMs = this.clock();
    this.lastMs = this.startMs;
    this.lastDone = options.startAt ?? 0;
  }

  private get tty(): boolean {
    return this.options.stream.isTTY === true;
  }

  private line(update: ProgressUpdate): string {
    const remaining = this.options.total - update.done;
    const etaSeconds = estimateEta({ stepSeconds: this.stepSeconds, remaining, ...(this.options.window ? { window: this.options.window } : {}) });
    const state: ProgressState = { ...update, total: this.options.total, ...(this.options.label ? { label: this.options.label } : {}), ...(etaSeconds === undefined ? {} : { etaSeconds }) };
    const columns = this.options.stream.columns ?? 80;
    return formatProgressLine(state, this.tty ? Math.max(20, columns - 1) : Infinity);
  }

  /** Records that `update.done` steps are finished and shows the new state. */
  update(update: ProgressUpdate): void {
    const now = this.clock();
    if (update.done > this.lastDone) {
      // Spread the time since the last update over the steps it covered.
      const per = (now - this.lastMs) / 1000 / (update.done - this.lastDone);
      for (let i = this.lastDone; i < update.done; i += 1) this.stepSeconds.push(per);
      this.stepSeconds.splice(0, Math.max(0, this.stepSeconds.length - 100));
      this.lastDone = update.done;
      this.lastMs = now;
    }
    const firstPrint = this.latest === undefined;
    this.latest = update;
    const text = this.line(update);
    if (this.tty) {
      this.options.stream.write(`${CLEAR_LINE}${text}`);
      this.drawn = text;
      return;
    }
    const every = Math.max(1, this.options.every ?? 10);
    if (firstPrint || update.done % every === 0 || update.done >= this.options.total) this.options.stream.write(`${text}\n`);
  }

  /** Prints a message on its own line; on a TTY the live line is redrawn below it. */
  log(message: string): void {
    if (this.tty && this.drawn) {
      this.options.stream.write(`${CLEAR_LINE}${message}\n${this.drawn}`);
    } else {
      this.options.stream.write(`${message}\n`);
    }
  }

  /** Replaces the live line by the final summary. Fields not given come from the last update. */
  finish(summary: Partial<ProgressSummary> = {}): string {
    const last = this.latest;
    const text = formatSummary({
      done: last?.done ?? this.lastDone,
      total: this.options.total,
      elapsedSeconds: (this.clock() - this.startMs) / 1000,
      ...(this.options.label ? { label: this.options.label } : {}),
      ...(last?.success !== undefined ? { success: last.success } : {}),
      ...(last?.successOf !== undefined ? { successOf: last.successOf } : {}),
      ...(last?.evalSuccess !== undefined ? { eval: { success: last.evalSuccess } } : {}),
      ...(last?.samplesPerS !== undefined ? { samplesPerS: last.samplesPerS } : {}),
      ...summary,
    });
    this.options.stream.write(`${this.tty ? CLEAR_LINE : ''}${text}\n`);
    this.drawn = '';
    return text;
  }
}
