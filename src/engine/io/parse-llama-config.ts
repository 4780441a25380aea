/**
 * Reads a Hugging Face `config.json` into a LlamaConfig, refusing what Troupe's Llama cannot
 * compute rather than silently ignoring it (rope scaling, attention biases, other
 * activations). Missing optional fields get transformers' LlamaConfig defaults.
 */
import { TroupeError } from '../../util/errors.js';
import type { LlamaConfig } from '../model/llama-config.js';

function bad(source: string, problem: string): TroupeError {
  return new TroupeError('checkpoint', `${source}: ${problem}`);
}

export function parseLlamaConfig(json: unknown, source = 'config.json'): LlamaConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad(source, 'not a JSON object');
  const raw = json as Record<string, unknown>;

  const positiveInt = (key: string, fallback?: number): number => {
    const value = raw[key] ?? fallback;
    if (!Number.isInteger(value) || (value as number) <= 0) {
      throw bad(source, `${key} must be a positive integer, got ${JSON.stringify(raw[key])}`);
    }
    return value as number;
  };
  const positiveNumber = (key: string, fallback: number): number => {
    const value = raw[key] ?? fallback;
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
      throw bad(source, `${key} must be a positive number, got ${JSON.stringify(raw[key])}`);
    }
    return value;
  };

  if (raw.model_type !== undefined && raw.model_type !== 'llama') {
    throw bad(source, `model_type ${JSON.stringify(raw.model_type)} is not supported; Troupe runs model_type "llama" (LlamaForCausalLM)`);
  }
  const act = raw.hidden_act ?? 'silu';
  if (act !== 'silu') throw bad(source, `hidden_act ${JSON.stringify(act)} is not supported; only "silu" (SwiGLU)`);
  for (const key of ['attention_bias', 'mlp_bias']) {
    if (raw[key] === true) throw bad(source, `${key}: true is not supported; Troupe's Llama has no biases`);
  }
  if (raw.rope_scaling !== undefined && raw.rope_scaling !== null) {
    throw bad(source, `rope_scaling ${JSON.stringify(raw.rope_scaling)} is not supported; remove it (plain RoPE only)`);
  }

  const hidden = positiveInt('hidden_size');
  const heads = positiveInt('num_attention_heads');
  const kvHeads = positiveInt('num_key_value_heads', heads);
  if (hidden % heads !== 0) throw bad(source, `hidden_size ${hidden} is not divisible by num_attention_heads ${heads}`);
  if (heads % kvHeads !== 0) throw bad(source, `num_attention_heads ${heads} is not divisible by num_key_value_heads ${kvHeads}`);
  const headDim = hidden / heads;
  if (headDim % 2 !== 0) throw bad(source, `head size ${headDim} (hidden_size / num_attention_heads) must be even for rotary embeddings`);
  if (raw.head_dim !== undefined && raw.head_dim !== null && raw.head_dim !== headDim) {
    throw bad(source, `head_dim ${JSON.stringify(raw.head_dim)} differs from hidden_size / num_attention_heads = ${headDim}; not supported`);
  }
  const tied = raw.tie_word_embeddings ?? false;
  if (typeof tied !== 'boolean') throw bad(source, `tie_word_embeddings must be true or false, got ${JSON.stringify(tied)}`);

  const config: LlamaConfig = {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: hidden,
    num_hidden_layers: positiveInt('num_hidden_layers'),
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    intermediate_size: positiveInt('intermediate_size'),
    vocab_size: positiveInt('vocab_size'),
    max_position_embeddings: positiveInt('max_position_embeddings', 2048),
    rms_norm_eps: positiveNumber('rms_norm_eps', 1e-6),
    rope_theta: positiveNumber('rope_theta', 10000),
    tie_word_embeddings: tied,
    hidden_act: 'silu',
    torch_dtype: 'float32',
  };
  const optionalId = (key: 'bos_token_id' | 'eos_token_id'): number | undefined => {
    const value = raw[key];
    if (value === undefined || value === null) return undefined;
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) >= config.vocab_size) {
      throw bad(source, `${key} must be a token id in 0..${config.vocab_size - 1}, got ${JSON.stringify(value)}`);
    }
    return value as number;
  };
  const bos = optionalId('bos_token_id');
  const eos = optionalId('eos_token_id');
  return { ...config, ...(bos !== undefined ? { bos_token_id: bos } : {}), ...(eos !== undefined ? { eos_token_id: eos } : {}) };
}
