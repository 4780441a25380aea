/** The headline numbers of a run, for the top of the report. */
import type { EvalRecord, MetricsRecord, TrainRecord } from '../metrics/types.js';

export interface RunSummary {
  /** RL steps recorded (highest step + 1). */
  readonly rlSteps: number;
  readonly warmStartSteps: number;
  /** The eval at the highest step, if any ran. */
  readonly finalEval?: EvalRecord;
  /** The eval before any RL update (step -1): the starting policy. */
  readonly baseEval?: EvalRecord;
  readonly lastTrain?: TrainRecord;
  /** Wall time in seconds: the last `elapsed_s`, else the sum of step times (`wallIsSum`). */
  readonly wallSeconds?: number;
  readonly wallIsSum: boolean;
  /** Share of step time spent in rollouts (the rest is updates). */
  readonly rolloutShare?: number;
}

export function summarizeRun(records: readonly MetricsRecord[]): RunSummary {
  const train = records.filter((r): r is TrainRecord => r.kind === 'train');
  const evals = records.filter((r): r is EvalRecord => r.kind === 'eval');
  const warmSteps = records.filter((r) => r.kind === 'warm-start').map((r) => r.step);
  const byStep = <R extends { step: number }>(list: readonly R[]) => list.reduce<R | undefined>((best, r) => (best === undefined || r.step >= best.step ? r : best), undefined);
  const finalEval = byStep(evals);
  const baseEval = evals.find((r) => r.step === -1);
  const lastTrain = byStep(train);
  const elapsed = records.map((r) => r.elapsed_s).filter((s): s is number => s !== undefined);
  const rollout = train.reduce((a, r) => a + r.rollout_s, 0);
  const update = train.reduce((a, r) => a + r.update_s, 0);
  const wallSeconds = elapsed.length > 0 ? Math.max(...elapsed) : train.length > 0 ? rollout + update : undefined;
  return {
    rlSteps: lastTrain ? lastTrain.step + 1 : 0,
    warmStartSteps: warmSteps.length > 0 ? Math.max(...warmSteps) + 1 : 0,
    ...(finalEval ? { finalEval } : {}),
    ...(baseEval ? { baseEval } : {}),
    ...(lastTrain ? { lastTrain } : {}),
    ...(wallSeconds !== undefined ? { wallSeconds } : {}),
    wallIsSum: elapsed.length === 0,
    ...(rollout + update > 0 ? { rolloutShare: rollout / (rollout + update) } : {}),
  };
}
