/**
 * Hyper-parameters of a Llama-family decoder, with the field names of Hugging Face's
 * `config.json` (so a checkpoint folder is loadable by transformers / vLLM as
 * `LlamaForCausalLM`). Parameter tensors use HF names too:
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
 * Linear weights are [out, in] as in PyTorch: y = x W^T.
 */
export interface LlamaConfig {
  readonly architectures: readonly string[]; // ['LlamaForCausalLM']
  readonly model_type: 'llama';
  readonly hidden_size: number;
  readonly num_hidden_layers: number;
  readonly num_attention_heads: number;
  readonly num_key_value_heads: number;
  readonly intermediate_size: number;
  readonly vocab_size: number;
  readonly max_position_embeddings: number;
  readonly rms_norm_eps: number;
  readonly rope_theta: number;
  readonly tie_word_embeddings: boolean;
  readonly hidden_act: 'silu';
  readonly torch_dtype: 'float32';
  readonly bos_token_id?: number;
  readonly eos_token_id?: number;
}

export function headDim(config: LlamaConfig): number {
  return config.hidden_size / config.num_attention_heads;
}

/** Fills HF defaults around the required sizes. */
export function llamaConfig(sizes: {
  hidden: number;
  layers: number;
  heads: number;
  kvHeads?: number;
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
