/**
 * Opt-in timing of every kernel call (TROUPE_PROFILE=1, or =cpu for CPU time, in `troupe
 * bench model`): wraps a Kernels object so each call adds its time to a row keyed by the op
 * and, for matmuls, its shape and transposition. What the rows do not cover (the JavaScript between the calls)
 * is the caller's total minus their sum.
 *
 *   const profiled = profileKernels(kernels);
 *   ... run work on profiled.kernels ...
 *   console.log(profiled.table(totalMs));
 */
import { performance } from 'node:perf_hooks';
import type { Kernels, MatmulArgs, MatmulBf16Args } from './types.js';

export interface ProfileRow {
  readonly key: string;
  calls: number;
  ms: number;
  /** Multiply-adds x 2 for matmuls, else 0. */
  flop: number;
}

export interface ProfiledKernels {
  readonly kernels: Kernels;
  readonly rows: Map<string, ProfileRow>;
  /** Forget what was measured so far (e.g. after a warm-up). */
  reset(): void;
  /** A text table, slowest first; `totalMs` (the caller's wall time) adds an "outside kernels" row. */
  table(totalMs?: number): string;
}

/** Matmul rows by shape: the layers of a model share their shapes, so they share a row. */
function matmulKey(op: string, args: MatmulArgs | MatmulBf16Args): string {
  const transA = 'transA' in args && args.transA ? 'T' : 'N';
  const transB = args.transB ? 'T' : 'N';
  return `${op} ${transA}${transB} m=${args.m} n=${args.n} k=${args.k}`;
}

/**
 * `clock: 'cpu'` times calls in CPU time of the whole process (process.cpuUsage): on one
 * thread (TROUPE_THREADS=1) that is the call's own cost, whatever else the machine runs.
 */
export function profileKernels(inner: Kernels, clock: 'wall' | 'cpu' = 'wall'): ProfiledKernels {
  const now = clock === 'wall' ? () => performance.now() : () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const rows = new Map<string, ProfileRow>();
  const add = (key: string, ms: number, flop: number): void => {
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { key, calls: 0, ms: 0, flop: 0 }));
    row.calls++;
    row.ms += ms;
    row.flop += flop;
  };
  const wrapped: Record<string, unknown> = {};
  for (const name of Object.keys(inner) as (keyof Kernels)[]) {
    const value = inner[name];
    if (typeof value !== 'function') {
      wrapped[name] = value;
      continue;
    }
    const fn = value as (...args: unknown[]) => unknown;
    wrapped[name] = (...args: unknown[]): unknown => {
      const start = now();
      const result = fn.apply(inner, args);
      const ms = now() - start;
      if (name === 'matmul' || name === 'matmulBf16') {
        const m = args[0] as MatmulArgs;
        add(matmulKey(name, m), ms, 2 * m.m * m.n * m.k);
      } else if (name === 'attentionBatchForward' || name === 'attentionBatchBackward') {
        const a = args[0] as { batch: number; seqLen: number };
        add(`${name} T=${a.seqLen}`, ms, 0);
      } else {
        add(name, ms, 0);
      }
      return result;
    };
  }
  return {
    kernels: wrapped as unknown as Kernels,
    rows,
    reset: () => rows.clear(),
    table(totalMs) {
      const sorted = [...rows.values()].sort((a, b) => b.ms - a.ms);
      const inside = sorted.reduce((s, r) => s + r.ms, 0);
      const lines = ['      ms  calls  GFLOP/s  op'];
      const line = (ms: number, calls: number, gflops: string, key: string): string =>
        `${ms.toFixed(0).padStart(8)} ${String(calls).padStart(6)} ${gflops.padStart(8)}  ${key}`;
      for (const r of sorted) lines.push(line(r.ms, r.calls, r.flop > 0 ? (r.flop / r.ms / 1e6).toFixed(1) : '', r.key));
      lines.push(line(inside, 0, '', 'all kernels'));
      if (totalMs !== undefined) lines.push(line(totalMs - inside, 0, '', 'outside kernels (JavaScript)'));
      return lines.join('\n');
    },
  };
}
