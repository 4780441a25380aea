/**
 * Learning rate at `step` (0-based): linear warm-up from 0 to maxLr over warmupSteps, then
 * cosine decay to minLr at totalSteps (held at minLr afterwards).
 */
export function cosineLr(options: { step: number; warmupSteps: number; totalSteps: number; maxLr: number; minLr?: number }): number {
  const { step, warmupSteps, totalSteps, maxLr, minLr = 0 } = options;
  if (step < warmupSteps) return (maxLr * (step + 1)) / warmupSteps;
  const decaySteps = Math.max(1, totalSteps - warmupSteps);
  const progress = Math.min(1, (step - warmupSteps) / decaySteps);
  return minLr + 0.5 * (maxLr - minLr) * (1 + Math.cos(Math.PI * progress));
}
