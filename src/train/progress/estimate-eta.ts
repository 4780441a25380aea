/**
 * Remaining time from a moving average of recent step durations. Recent steps only, because
 * step time drifts during a run (responses get shorter as the policy learns, evals come and
 * go); the whole-run mean would lag behind.
 */
export interface EtaInput {
  /** Durations of finished steps in seconds, oldest first. */
  readonly stepSeconds: readonly number[];
  /** Steps still to run. */
  readonly remaining: number;
  /** How many of the latest steps to average (default 10). */
  readonly window?: number;
}

/** Seconds left, or `undefined` before any step has been timed. */
export function estimateEta({ stepSeconds, remaining, window = 10 }: EtaInput): number | undefined {
  if (remaining <= 0) return 0;
  const recent = stepSeconds.slice(-Math.max(1, window));
  if (recent.length === 0) return undefined;
  const mean = recent.reduce((a, b) => a + b, 0) / recent.length;
  return mean * remaining;
}
