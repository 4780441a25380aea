/**
 * Reads a Hugging Face `config.json` of a Llama, Qwen2/2.5 or Qwen3 decoder into a
 * LlamaConfig, refusing what the engine cannot compute rather than silently ignoring it
 * (other model types, sliding-window attention in use, mixture-of-experts, other RoPE kinds,
 * other activations). Missing optional fields get transformers' defaults for that family.
 * Every refusal is one line naming the file and the key.
 */
import { TroupeError } from '../../util/errors.js';
import { FAMILIES } from '../model/architecture.js';
import type { LlamaConfig, ModelType } from '../model/llama-config.js';
import { parseRopeConfig } from './parse-rope-config.js';

/** Keys of mixture-of-experts configs (Qwen2-MoE, Qwen3-MoE, Mixtral, DeepSeek). */
const MOE_KEYS = ['num_experts', 'num_local_experts', 'num_experts_per_tok', 'moe_intermediate_size', 'n_routed_experts'];

function bad(source: string, problem: string): TroupeError {
  return new TroupeError('checkpoint', `${source}: ${problem}`);
}

function isModelType(value: unknown): value is ModelType {
  return typeof value === 'string' && Object.hasOwn(FAMILIES, value);
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
  const flag = (key: string): boolean => {
    const value = raw[key] ?? false;
    if (typeof value !== 'boolean') throw bad(source, `${key} must be true or false, got ${JSON.stringify(value)}`);
    return value;
  };

  const modelType = raw.model_type ?? 'llama';
  if (!isModelType(modelType)) {
    throw bad(source, `model_type ${JSON.stringify(modelType)} is not supported; Troupe runs ${Object.keys(FAMILIES).map((t) => `"${t}"`).join(', ')}`);
  }
  const family = FAMILIES[modelType];
  const architectures = raw.architectures ?? [family.architecture];
  if (!Array.isArray(architectures) || architectures.length !== 1 || architectures[0] !== family.architecture) {
    throw bad(source, `architectures ${JSON.stringify(architectures)} is not supported for model_type "${modelType}"; expected ["${family.architecture}"]`);
  }
  refuseUnsupported(raw, source);

  const hidden = positiveInt('hidden_size');
  const heads = positiveInt('num_attention_heads');
  const kvHeads = positiveInt('num_key_value_heads', heads);
  if (heads % kvHeads !== 0) throw bad(source, `num_attention_heads ${heads} is not divisible by num_key_value_heads ${kvHeads}`);
  const defaultHeadDim = family.defaultHeadDim(hidden, heads);
  if ((raw.head_dim ?? undefined) === undefined && !Number.isInteger(defaultHeadDim)) {
    throw bad(source, `hidden_size ${hidden} is not divisible by num_attention_heads ${heads} and head_dim is not set`);
  }
  const headDim = positiveInt('head_dim', defaultHeadDim);
  if (headDim % 2 !== 0) throw bad(source, `head_dim ${headDim} must be even for rotary embeddings`);
  const rope = parseRopeConfig(raw, source);

  const config: LlamaConfig = {
    architectures: [family.architecture],
    model_type: modelType,
    hidden_size: hidden,
    num_hidden_layers: positiveInt('num_hidden_layers'),
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    head_dim: headDim,
    intermediate_size: positiveInt('intermediate_size'),
    vocab_size: positiveInt('vocab_size'),
    max_position_embeddings: positiveInt('max_position_embeddings', 2048),
    rms_norm_eps: positiveNumber('rms_norm_eps', 1e-6),
    rope_theta: rope.theta,
    ...(rope.scaling ? { rope_scaling: rope.scaling } : {}),
    ...(flag('attention_bias') ? { attention_bias: true } : {}),
    ...(flag('mlp_bias') ? { mlp_bias: true } : {}),
    tie_word_embeddings: flag('tie_word_embeddings'),
    hidden_act: 'silu',
    torch_dtype: 'float32',
  };
  const optionalId = (key: 'bos_token_id' | 'eos_token_id'): number | undefined => {
    // Llama 3 lists several end tokens; the first is the one its tokenizer names.
    const value = Array.isArray(raw[key]) ? (raw[key] as unknown[])[0] : raw[key];
    if (value === undefined || value === null) return undefined;
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) >= config.vocab_size) {
      throw bad(source, `${key} must be a token id in 0..${config.vocab_size - 1}, got ${JSON.stringify(raw[key])}`);
    }
    return value as number;
  };
  const bos = optionalId('bos_token_id');
  const eos = optionalId('eos_token_id');
  return { ...config, ...(bos !== undefined ? { bos_token_id: bos } : {}), ...(eos !== undefined ? { eos_token_id: eos } : {}) };
}

/** Features whose numbers Troupe would get wrong if it ignored them. */
function refuseUnsupported(raw: Record<string, unknown>, source: string): void {
  const act = raw.hidden_act ?? 'silu';
  if (act !== 'silu') throw bad(source, `hidden_act ${JSON.stringify(act)} is not supported; only "silu" (SwiGLU)`);
  if (raw.use_sliding_window === true) {
    throw bad(source, 'use_sliding_window: true is not supported; Troupe attends over the full context (set it to false only if the model was trained that way)');
  }
  const layerTypes = raw.layer_types;
  if (Array.isArray(layerTypes)) {
    const other = layerTypes.find((t) => t !== 'full_attention');
    if (other !== undefined) throw bad(source, `layer_types contains ${JSON.stringify(other)}; only "full_attention" layers are supported`);
  }
  for (const key of MOE_KEYS) {
    const value = raw[key];
    if (value !== undefined && value !== null && value !== 0) throw bad(source, `${key} ${JSON.stringify(value)}: mixture-of-experts models are not supported`);
  }
}
