/**
 * How many threads Troupe's kernels use and how many sandboxed programs run at once:
 * TROUPE_THREADS, else every core this process may use. Numbers never depend on the count
 * (the kernels split work only where every output is summed the same way whoever computes
 * it), so the default can follow the machine.
 *
 * @example
 * threadsFromEnv({ TROUPE_THREADS: '4' }); // 4
 * threadsFromEnv({});                      // os.availableParallelism(), e.g. 16
 */
import { availableParallelism } from 'node:os';
import { TroupeError } from './errors.js';

/** The most threads one kernels object starts (the native pool's helpers + the caller). */
export const MAX_THREADS = 256;

/** The cores this process may use (its CPU affinity), at most MAX_THREADS. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(MAX_THREADS, availableParallelism()));
}

/**
 * The thread count from TROUPE_THREADS (a whole number from 1 to MAX_THREADS; more than the
 * machine's cores is allowed and only oversubscribes them), else defaultThreads().
 */
export function threadsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.TROUPE_THREADS;
  if (value === undefined || value === '') return defaultThreads();
  const threads = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (threads >= 1 && threads <= MAX_THREADS) return threads;
  throw new TroupeError('config', `TROUPE_THREADS must be a whole number from 1 to ${MAX_THREADS}, got '${value}'; unset it to use the ${defaultThreads()} cores this process may use`);
}

/** Throws a `config` error naming `what` unless `threads` is a whole number from 1 to MAX_THREADS. */
export function checkThreads(threads: number, what = 'kernel threads'): number {
  if (Number.isInteger(threads) && threads >= 1 && threads <= MAX_THREADS) return threads;
  throw new TroupeError('config', `${what} must be a whole number from 1 to ${MAX_THREADS}, got ${String(threads)}`);
}
