/** Rewards are sums of decimals like -0.01; round away float noise (0.1 + 0.2) for reports. */
export function roundReward(value: number): number {
  return Math.round(value * 1e6) / 1e6 + 0; // + 0 turns -0 into 0
}

/** Two decimals for prompts, without a "-0.00". */
export function formatReward(value: number): string {
  const text = value.toFixed(2);
  return text === '-0.00' ? '0.00' : text;
}
