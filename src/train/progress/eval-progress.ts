/**
 * What `troupe eval` shows and checks while the team plays: every policy is watched, so the
 * command can print how many completions came back (a remote model may take minutes, and a
 * dead server retries for seconds per request), and can tell when every one of them failed,
 * which is a broken backend, not a score of 0.
 *
 * ```ts
 * const watch = watchPolicies(policyFor, { stream: process.stderr, everyMs: 2000, label: 'eval plan-path' });
 * try { await evaluate({ ..., policyFor: watch.policyFor }); } finally { watch.stop(); }
 * if (watch.allFailed()) throw ...;
 * ```
 */
import type { Completion, Policy } from '../../policy/types.js';

export interface WatchOptions {
  /** Where the progress lines go (stderr); absent: count only. */
  readonly stream?: { write(text: string): unknown; readonly isTTY?: boolean };
  /** How often a line is printed (the first after the same time, so a quick eval prints none). */
  readonly everyMs: number;
  readonly label: string;
}

export interface WatchedPolicies {
  readonly policyFor: (role: string) => Policy;
  readonly counts: () => { completions: number; failed: number };
  /** True when completions were asked for and none could be generated. */
  readonly allFailed: () => boolean;
  /** Stops the progress timer and clears a redrawn line. */
  readonly stop: () => void;
}

export function watchPolicies(policyFor: (role: string) => Policy, options: WatchOptions): WatchedPolicies {
  let completions = 0;
  let failed = 0;
  const started = performance.now();
  const wrapped = new Map<Policy, Policy>();
  const count = (batches: Completion[][]) => {
    for (const c of batches.flat()) {
      completions++;
      if (c.finishReason === 'error') failed++;
    }
  };
  const watched = (role: string): Policy => {
    const inner = policyFor(role);
    let policy = wrapped.get(inner);
    if (!policy) {
      // One wrapper per inner policy keeps roles that share a policy batched together.
      policy = { id: inner.id, sample: async (requests) => { const out = await inner.sample(requests); count(out); return out; } };
      wrapped.set(inner, policy);
    }
    return policy;
  };
  const stream = options.stream;
  const tty = stream?.isTTY === true;
  let drawn = false;
  const timer = stream === undefined ? undefined : setInterval(() => {
    const seconds = Math.round((performance.now() - started) / 1000);
    const line = `${options.label}: ${completions} completions so far${failed > 0 ? ` (${failed} failed)` : ''}, ${seconds}s`;
    stream.write(tty ? `\r\x1b[K${line}` : `${line}\n`);
    drawn = tty;
  }, options.everyMs);
  timer?.unref();
  return {
    policyFor: watched,
    counts: () => ({ completions, failed }),
    allFailed: () => completions > 0 && failed === completions,
    stop: () => {
      if (timer !== undefined) clearInterval(timer);
      if (drawn) stream?.write('\r\x1b[K');
    },
  };
}
