/** The progress line's numbers, read off the records the trainer writes to metrics.jsonl. */
import type { EvalRecord, TrainRecord, WarmStartRecord } from '../metrics/types.js';
import type { ProgressUpdate } from './progress-display.js';

/** After RL step `train.step`: its success, per-role reward and throughput, plus the latest eval. */
export function progressFromTrain(train: TrainRecord, lastEval?: EvalRecord): ProgressUpdate {
  return {
    done: train.step + 1,
    success: train.success_rate,
    ...(train.success_of ? { successOf: train.success_of } : {}),
    ...(lastEval ? { evalSuccess: lastEval.success_rate, evalStep: lastEval.step } : {}),
    rewards: Object.fromEntries(Object.entries(train.roles).map(([role, r]) => [role, r.reward])),
    samplesPerS: train.samples_per_s,
  };
}

/** After warm-start step `record.step`: its loss. */
export function progressFromWarmStart(record: WarmStartRecord): ProgressUpdate {
  return { done: record.step + 1, ...(record.loss === null ? {} : { extra: `loss ${record.loss.toFixed(3)}` }) };
}
