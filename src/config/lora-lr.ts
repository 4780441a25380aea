/**
 * The learning rate of LoRA adapters: train.lr * train.lora_lr_scale, or train.lora_lr outright.
 * "LoRA Without Regret" (Thinking Machines, 2025) found RL with LoRA matches full fine-tuning
 * of real LLMs at about 10x its learning rate (tinker-cookbook's
 * get_lora_lr_over_full_finetune_lr returns 10). Measured on the embedded 0.2M-parameter
 * model (docs/results.md, "LoRA against full fine-tuning"), 10x fell below the base while 1x
 * learned, so the default factor is 1; a real LLM sets 10. docs/config.md, "LoRA learning rate".
 *
 *   peakLearningRate(config)   // { lr: 0.01, rule: 'train.lr 0.001 x train.lora_lr_scale 10' }
 */
import type { ParsedConfig } from './config-schema.js';

/** The factor a LoRA run applies to train.lr when the config sets neither lora key. */
export const LORA_LR_SCALE = 1;

/** Whether the trained policies are LoRA adapters: embedded with map lora, or any Tinker client. */
export function trainsLora(policy: Pick<ParsedConfig['policy'], 'kind' | 'map'>): boolean {
  return policy.kind === 'tinker' || (policy.kind === 'embedded' && policy.map === 'lora');
}

export interface PeakLearningRate {
  /** The peak of the RL schedule (warm-up, then cosine decay to lr * min_lr_ratio). */
  readonly lr: number;
  /** How a LoRA rate was derived from train.lr, for the run's first lines; absent when lr is train.lr or train.lora_lr as written. */
  readonly rule?: string;
}

/** The peak RL learning rate a run uses (the warm start has its own, warm_start.lr). */
export function peakLearningRate(config: Pick<ParsedConfig, 'policy' | 'train'>): PeakLearningRate {
  const t = config.train;
  if (!trainsLora(config.policy)) return { lr: t.lr };
  if (t.lora_lr !== undefined) return { lr: t.lora_lr };
  const scale = t.lora_lr_scale ?? LORA_LR_SCALE;
  return { lr: t.lr * scale, rule: `train.lr ${t.lr} x train.lora_lr_scale ${scale}` };
}
