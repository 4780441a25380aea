/**
 * `train.micro_batch_tokens: auto`: how many tokens a learner micro-batch may hold so that the
 * activations kept for the backward pass stay within a budget. A micro-batch only bounds
 * memory (the gradients of its pieces add up to the whole batch's), so the size is free to
 * follow the model: the built-in character models take the cap, a Qwen3-0.6B-sized model
 * about 200 tokens a micro-batch (it keeps ~4 MB per token; 16384 tokens would need 64 GB).
 */
import { headDim, type LlamaConfig } from '../engine/model/llama-config.js';

/** The cap: the most tokens a micro-batch holds, whatever the model (the old fixed default). */
export const MAX_MICRO_BATCH_TOKENS = 16384;
export const MIN_MICRO_BATCH_TOKENS = 64;
/** Activations a micro-batch may keep, on top of the weights, gradients and optimizer state. */
export const ACTIVATION_BUDGET_BYTES = 2 ** 30;
/** Attention's share grows with the sequence; sequences are assumed at most this long. */
const ASSUMED_SEQUENCE = 1024;

/**
 * Bytes a scored token keeps for the backward pass, from the model's shape. Float32 counts
 * per layer: ~6 of hidden (norm inputs and outputs, projections back to hidden, residuals),
 * 4 of intermediate (gate, up, activation, product), 3 of the query width, 4 of the key/value
 * width, half a float per head and position of the sequence; the head keeps ~1.5 floats per
 * vocabulary entry (logits and log-softmax). Measured on the native kernels with the kernel
 * allocation counter (engine/train-memory.ts), one LoRA step, differences over layer counts:
 * per layer 116 KB/token (this formula: 123) for Qwen3-0.6B's shape at 256 tokens, 141 (148)
 * at 1024 tokens; 60 KB (70) for hidden 512 / intermediate 2816; the head 700 KB (912) at
 * vocabulary 151936, so the estimate errs on the side of smaller micro-batches.
 */
export function activationBytesPerToken(config: LlamaConfig, sequenceLength: number): number {
  const d = headDim(config);
  const perLayer =
    6 * config.hidden_size +
    4 * config.intermediate_size +
    3 * config.num_attention_heads * d +
    4 * config.num_key_value_heads * d +
    (config.num_attention_heads * sequenceLength) / 2;
  return 4 * (config.num_hidden_layers * perLayer + 1.5 * config.vocab_size);
}

/** The micro-batch size `auto` stands for: the budget over the largest model's per-token bytes. */
export function autoMicroBatchTokens(configs: readonly LlamaConfig[], budgetBytes = ACTIVATION_BUDGET_BYTES): number {
  let tokens = MAX_MICRO_BATCH_TOKENS;
  for (const config of configs) {
    const sequence = Math.min(config.max_position_embeddings, ASSUMED_SEQUENCE);
    tokens = Math.min(tokens, Math.floor(budgetBytes / activationBytesPerToken(config, sequence)));
  }
  return Math.max(MIN_MICRO_BATCH_TOKENS, tokens);
}

/** `train.micro_batch_tokens` as the learner takes it: a number stays, `auto` is sized to the models. */
export function resolveMicroBatchTokens(setting: number | 'auto', configs: readonly LlamaConfig[]): number {
  return setting === 'auto' ? autoMicroBatchTokens(configs) : setting;
}
