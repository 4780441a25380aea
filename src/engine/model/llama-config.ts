import type { Llama3RopeScaling } from './rope-frequencies.js';

/** The decoder families Troupe runs; architecture.ts says how they differ. */
export type ModelType = 'llama' | 'qwen2' | 'qwen3';

/**
 * Hyper-parameters of a Llama-family decoder (Llama, Qwen2/2.5, Qwen3), with the field names
 * of Hugging Face's `config.json` (so a checkpoint folder is loadable by transformers / vLLM
 * as `LlamaForCausalLM`, `Qwen2ForCausalLM` or `Qwen3ForCausalLM`). Parameter tensors use HF
 * names too:
 *   model.embed_tokens.weight                      [vocab, hidden]
 *   model.layers.{i}.input_layernorm.weight        [hidden]
 *   model.layers.{i}.self_attn.q_proj.weight       [heads * headDim, hidden]
 *   model.layers.{i}.self_attn.k_proj.weight       [kvHeads * headDim, hidden]
 *   model.layers.{i}.self_attn.v_proj.weight       [kvHeads * headDim, hidden]
 *   model.layers.{i}.self_attn.o_proj.weight       [hidden, heads * headDim]
 *   model.layers.{i}.post_attention_layernorm.weight [hidden]
 *   model.layers.{i}.mlp.gate_proj.weight          [intermediate, hidden]
 *   model.layers.{i}.mlp.up_proj.weight            [intermediate, hidden]
 *   model.layers.{i}.mlp.down_proj.weight          [hidden, intermediate]
 *   model.norm.weight                              [hidden]
 *   lm_head.weight                                 [vocab, hidden]  (absent when tied)
 * plus, where the architecture has them (architecture.ts), projection biases
 * `...{q,k,v,o}_proj.bias` / `...mlp.{gate,up,down}_proj.bias` [out] and Qwen3's per-head
 * norms `model.layers.{i}.self_attn.{q,k}_norm.weight` [headDim].
 * Linear weights are [out, in] as in PyTorch: y = x W^T + b.
 */
export interface LlamaConfig {
  readonly architectures: readonly string[]; // e.g. ['Qwen3ForCausalLM']
  readonly model_type: ModelType;
  /** Width of one attention head; hidden_size / num_attention_heads when absent. */
  readonly head_dim?: number;
  /** Llama / Qwen3: biases on q, k, v and o (Qwen2 always has q, k, v biases). */
  readonly attention_bias?: boolean;
  /** Llama: biases on gate, up and down. */
  readonly mlp_bias?: boolean;
  readonly hidden_size: number;
  readonly num_hidden_layers: number;
  readonly num_attention_heads: number;
  readonly num_key_value_heads: number;
  readonly intermediate_size: number;
  readonly vocab_size: number;
  readonly max_position_embeddings: number;
  readonly rms_norm_eps: number;
  readonly rope_theta: number;
  /** Llama 3 frequency rescaling; absent = plain RoPE. */
  readonly rope_scaling?: Llama3RopeScaling;
  readonly tie_word_embeddings: boolean;
  readonly hidden_act: 'silu';
  readonly torch_dtype: 'float32';
  readonly bos_token_id?: number;
  readonly eos_token_id?: number;
}

export function headDim(config: LlamaConfig): number {
  return config.head_dim ?? config.hidden_size / config.num_attention_heads;
}

/** Fills HF defaults around the required sizes. */
export function llamaConfig(sizes: {
  hidden: number;
  layers: number;
  heads: number;
  kvHeads?: number;
  /** Default hidden / heads. */
  headDim?: number;
  intermediate: number;
  vocab: number;
  context?: number;
  tied?: boolean;
  ropeTheta?: number;
  rmsNormEps?: number;
}): LlamaConfig {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: sizes.hidden,
    num_hidden_layers: sizes.layers,
    num_attention_heads: sizes.heads,
    num_key_value_heads: sizes.kvHeads ?? sizes.heads,
    // Always written: Qwen3's transformers default (128) is not hidden / heads.
    head_dim: sizes.headDim ?? sizes.hidden / sizes.heads,
    intermediate_size: sizes.intermediate,
    vocab_size: sizes.vocab,
    max_position_embeddings: sizes.context ?? 256,
    rms_norm_eps: sizes.rmsNormEps ?? 1e-5,
    rope_theta: sizes.ropeTheta ?? 10000,
    tie_word_embeddings: sizes.tied ?? false,
    hidden_act: 'silu',
    torch_dtype: 'float32',
  };
}
