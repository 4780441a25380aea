/**
 * The per-request and per-server bounds of `troupe serve --tinker`: every Tinker request is
 * checked against them at the HTTP edge, before it is queued, so a hostile or mistaken request
 * costs one 4xx and no engine time. Each is a server option (`--max-lora-rank` etc., see
 * docs/tinker.md); the defaults are generous for real use on a CPU.
 *
 *   const limits = resolveTinkerLimits({ maxNumSamples: 64 });   // the rest default
 */
import { TroupeError } from '../../util/errors.js';

export interface TinkerLimits {
  /** Largest `lora_config.rank` of create_model. */
  readonly maxLoraRank: number;
  /** Bytes all LoRA adapters (training models and sampler snapshots) may hold together. */
  readonly maxAdapterBytes: number;
  /** Largest `num_samples` of one asample. */
  readonly maxNumSamples: number;
  /** Largest `sampling_params.max_tokens`. */
  readonly maxTokens: number;
  /** Largest number of model_input tokens of one forward_backward datum (the model's context bounds it too). */
  readonly maxDatumTokens: number;
  /** Largest number of model_input tokens of one forward_backward request, all datums together. */
  readonly maxBatchTokens: number;
  /** Largest request body, in bytes (a bigger one is answered 413). */
  readonly maxBodyBytes: number;
}

export const DEFAULT_TINKER_LIMITS: TinkerLimits = {
  maxLoraRank: 128,
  maxAdapterBytes: 4 * 1024 ** 3,
  maxNumSamples: 256,
  maxTokens: 32_768,
  maxDatumTokens: 32_768,
  maxBatchTokens: 262_144,
  maxBodyBytes: 256 * 1024 ** 2,
};

/** The CLI flag of each limit, for messages that tell the operator how to raise it. */
export const LIMIT_FLAGS: Readonly<Record<keyof TinkerLimits, string>> = {
  maxLoraRank: '--max-lora-rank',
  maxAdapterBytes: '--max-adapter-mb',
  maxNumSamples: '--max-num-samples',
  maxTokens: '--max-tokens',
  maxDatumTokens: '--max-datum-tokens',
  maxBatchTokens: '--max-batch-tokens',
  maxBodyBytes: '--max-body-mb',
};

/** The defaults with `given` on top; each limit must be a positive integer. */
export function resolveTinkerLimits(given: Partial<TinkerLimits> = {}): TinkerLimits {
  const limits = { ...DEFAULT_TINKER_LIMITS, ...given };
  for (const [key, value] of Object.entries(limits) as Array<[keyof TinkerLimits, number]>) {
    if (!Number.isSafeInteger(value) || value < 1) throw new TroupeError('input', `${LIMIT_FLAGS[key]} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return limits;
}
