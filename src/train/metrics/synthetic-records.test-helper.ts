/**
 * Plausible made-up metrics for tests and for looking at the report without training:
 * a warm start whose loss falls, then RL steps whose success rises, with evals every few steps.
 */
import { Rng } from '../../util/rng.js';
import type { EvalRecord, MetricsRecord, TrainRecord, WarmStartRecord } from './types.js';

export interface SyntheticOptions {
  readonly seed?: number;
  readonly steps?: number;
  readonly warmStartSteps?: number;
  readonly evalEvery?: number;
  readonly roles?: readonly string[];
  readonly policies?: readonly string[];
}

export function syntheticRecords(options: SyntheticOptions = {}): MetricsRecord[] {
  const { seed = 1, steps = 40, warmStartSteps = 30, evalEvery = 5 } = options;
  const roles = options.roles ?? ['tool', 'plan'];
  const policies = options.policies ?? roles;
  const rng = new Rng(seed);
  const noise = (scale: number) => (rng.next() - 0.5) * 2 * scale;
  const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
  const records: MetricsRecord[] = [];
  let elapsed = 0;
  for (let step = 0; step < warmStartSteps; step += 1) {
    elapsed += 0.4;
    const ws: WarmStartRecord = { kind: 'warm-start', step, loss: 2.5 * Math.exp(-step / 10) + 0.3 + noise(0.05), tokens: 4000, lr: 1e-3, elapsed_s: elapsed };
    records.push(ws);
  }
  const successAt = (step: number) => clamp01(0.3 + 0.55 * (1 - Math.exp(-step / (steps / 3))));
  const evalAt = (step: number) => {
    const p = clamp01(successAt(step + 1) - 0.04 + noise(0.02));
    const n = 200;
    const half = 1.96 * Math.sqrt((p * (1 - p)) / n);
    const record: EvalRecord = {
      kind: 'eval', step, split: 'eval', success_rate: p, ci_low: clamp01(p - half), ci_high: clamp01(p + half), n,
      mean_turns: 4 - 2 * p, roles: Object.fromEntries(roles.map((r, i) => [r, { reward: p - 0.1 * i }])), elapsed_s: elapsed,
    };
    return record;
  };
  records.push(evalAt(-1));
  for (let step = 0; step < steps; step += 1) {
    const p = clamp01(successAt(step) + noise(0.08));
    const rollout_s = 3 + noise(0.5);
    const update_s = 1.2 + noise(0.2);
    elapsed += rollout_s + update_s;
    const samples = 96;
    const tokens = samples * Math.round(30 - 10 * p);
    const record: TrainRecord = {
      kind: 'train', step, success_rate: p, success_of: 'best-branch', mean_turns: 4 - 2 * p + noise(0.2), episodes: 16, samples, tokens,
      parse_failures: Math.max(0, Math.round(6 * (1 - p) + noise(2))), filtered_groups: Math.round(3 * p), samples_per_s: samples / rollout_s,
      tokens_per_s: tokens / rollout_s, rollout_s, update_s, lr: 5e-4,
      roles: Object.fromEntries(roles.map((r, i) => [r, {
        reward: p - 0.1 * i + noise(0.05), local: 0.5 * p + noise(0.05), global: p, response_len: 20 + 6 * i - 5 * p + noise(1), samples: samples / roles.length,
      }])),
      policies: Object.fromEntries(policies.map((id, i) => [id, {
        loss: 0.05 * Math.exp(-step / 20) * (1 + i) + noise(0.01), clip_fraction: clamp01(0.1 + noise(0.05)), kl: step === 0 ? null : 0.002 * step * (1 + i),
        entropy: 1.2 - 0.5 * p - 0.1 * i, grad_norm: 0.8 + noise(0.2), tokens: tokens / policies.length,
      }])),
      elapsed_s: elapsed,
    };
    records.push(record);
    if ((step + 1) % evalEvery === 0 || step === steps - 1) records.push(evalAt(step));
  }
  return records;
}
