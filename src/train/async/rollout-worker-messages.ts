/** The messages between rollout-worker.ts and its thread (rollout-worker-thread.ts). */
import type { ModelTransfer, TokenizerTransfer, WeightsTransfer } from '../../engine/worker/model-transfer.js';
import type { KernelsSpec } from '../../engine/worker/start-worker.js';
import type { ResolvedConfig } from '../../config/resolve-config.js';
import type { PromptFormatTransfer } from '../../policy/prompt-format-transfer.js';
import type { ErrorCategory } from '../../util/errors.js';
import type { StepRollout } from '../train-step.js';

/** The thread's `workerData`: everything it samples with, copied once. */
export interface RolloutWorkerInit {
  readonly config: ResolvedConfig;
  /** The learner's kernels, which the thread makes again with its own thread count. */
  readonly kernels: KernelsSpec;
  readonly models: readonly ModelTransfer[];
  readonly tokenizers: readonly TokenizerTransfer[];
  /** One per policy id: indices into `models` and `tokenizers`. */
  readonly policies: readonly {
    readonly id: string;
    readonly model: number;
    readonly tokenizer: number;
    readonly adapter?: string;
    readonly maxBatch: number;
    readonly prompting: PromptFormatTransfer;
    readonly logitMask: Int32Array;
  }[];
  readonly roleToPolicy: readonly (readonly [string, string])[];
  /** Least time between two progress messages of a rollout. */
  readonly progressEveryMs: number;
}

export type WorkerRequest =
  | { readonly type: 'weights'; readonly models: readonly { readonly model: number; readonly weights: WeightsTransfer }[] }
  | { readonly type: 'rollout'; readonly id: number; readonly step: number };

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'rollout'; readonly id: number; readonly rollout: StepRollout }
  /** Completions the rollout `id` has so far (at most one every progressEveryMs: long rollouts of big models). */
  | { readonly type: 'progress'; readonly id: number; readonly completions: number }
  /** id -1: the thread failed to start, or a weights message failed (every later rollout is then wrong). */
  | { readonly type: 'error'; readonly id: number; readonly message: string; readonly category?: ErrorCategory };
