import { InvalidArgumentError, Option } from 'commander';
import { MAX_THREADS } from '../util/thread-count.js';

/**
 * `--threads <n>`: a whole number from 1 to MAX_THREADS (more than the machine's cores only
 * oversubscribes them). Unset, a command uses TROUPE_THREADS, else every core it may use.
 */
export function threadsOption(description: string): Option {
  return new Option('--threads <n>', `${description} (default: TROUPE_THREADS, else every core this process may use)`).argParser((value: string) => {
    const threads = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
    if (threads >= 1 && threads <= MAX_THREADS) return threads;
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_THREADS}.`);
  });
}
