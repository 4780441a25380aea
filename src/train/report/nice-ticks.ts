/**
 * Axis ticks at round numbers (1, 2 or 5 times a power of ten), the way people label axes
 * by hand, and tick labels with just enough decimals to tell neighbours apart.
 */

export interface TickOptions {
  /** About this many intervals (default 5); the result has between about half and twice that. */
  readonly target?: number;
  /** Ticks only at whole numbers (step counts). */
  readonly integer?: boolean;
  /** Widen the range out to the outer ticks (y axes); otherwise keep it and tick inside (x axes). */
  readonly extend?: boolean;
}

export interface Ticks {
  /** The axis range (widened to round numbers when `extend`). */
  readonly min: number;
  readonly max: number;
  readonly step: number;
  readonly values: number[];
}

function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / magnitude;
  const nice = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
  return Number((nice * magnitude).toPrecision(12));
}

export function niceTicks(min: number, max: number, options: TickOptions = {}): Ticks {
  const { target = 5, integer = false, extend = true } = options;
  let lo = min;
  let hi = max;
  if (!(hi > lo)) {
    // One value (or none): make room around it so the line is not drawn on the frame.
    const pad = integer ? 1 : Math.abs(lo) * 0.1 || 1;
    lo -= pad;
    hi += pad;
  }
  let step = niceStep((hi - lo) / Math.max(1, target));
  if (integer) step = Math.max(1, Math.round(step));
  const first = extend ? Math.floor(lo / step + 1e-9) : Math.ceil(lo / step - 1e-9);
  const last = extend ? Math.ceil(hi / step - 1e-9) : Math.floor(hi / step + 1e-9);
  // Multiply instead of accumulating, so 0.1 + 0.2 style drift never reaches a label.
  const values: number[] = [];
  for (let i = first; i <= last; i += 1) values.push(Number((i * step).toPrecision(12)));
  return extend ? { min: values[0]!, max: values[values.length - 1]!, step, values } : { min: lo, max: hi, step, values };
}

/** A tick label: `0.25`, `1.5k`, `2e-4`, or `40%` for fractions shown as percent. */
export function formatTick(value: number, step: number, percent = false): string {
  if (percent) {
    const decimals = Math.max(0, -Math.floor(Math.log10(step * 100) + 1e-9));
    return `${(value * 100).toFixed(decimals)}%`;
  }
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e4) {
    const scaled = abs >= 1e6 ? { d: 1e6, s: 'M' } : { d: 1e3, s: 'k' };
    const decimals = Math.max(0, -Math.floor(Math.log10(step / scaled.d) + 1e-9));
    return `${(value / scaled.d).toFixed(decimals)}${scaled.s}`;
  }
  if (step < 1e-3) return value.toExponential(Math.max(0, Math.floor(Math.log10(abs) + 1e-9) - Math.floor(Math.log10(step) + 1e-9)));
  return value.toFixed(Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
}
