import { TroupeError } from '../../util/errors.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor } from '../tensor.js';
import { initParameter } from './init-parameter.js';
import { describeArchitecture, qkNormName } from './architecture.js';
import { headDim, type LlamaConfig } from './llama-config.js';

/** The seven linear layers of a decoder layer, by their HF module names. */
export type LinearModule = 'q_proj' | 'k_proj' | 'v_proj' | 'o_proj' | 'gate_proj' | 'up_proj' | 'down_proj';
export const LINEAR_MODULES: readonly LinearModule[] = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

/** Where a module sits inside a layer (`self_attn` or `mlp`), as in HF names. */
export function modulePath(module: LinearModule): string {
  return module === 'gate_proj' || module === 'up_proj' || module === 'down_proj' ? `mlp.${module}` : `self_attn.${module}`;
}

export function linearWeightName(layer: number, module: LinearModule): string {
  return `model.layers.${layer}.${modulePath(module)}.weight`;
}

/** The bias of a projection, present when the architecture has one (architecture.ts). */
export function linearBiasName(layer: number, module: LinearModule): string {
  return `model.layers.${layer}.${modulePath(module)}.bias`;
}

/** [out, in] of a linear module for this config. */
export function linearShape(config: LlamaConfig, module: LinearModule): [number, number] {
  const hidden = config.hidden_size;
  const qWidth = config.num_attention_heads * headDim(config);
  const kvWidth = config.num_key_value_heads * headDim(config);
  const inter = config.intermediate_size;
  const shapes: Record<LinearModule, [number, number]> = {
    q_proj: [qWidth, hidden],
    k_proj: [kvWidth, hidden],
    v_proj: [kvWidth, hidden],
    o_proj: [hidden, qWidth],
    gate_proj: [inter, hidden],
    up_proj: [inter, hidden],
    down_proj: [hidden, inter],
  };
  return shapes[module];
}

/**
 * Every parameter of the model, HF name -> shape, in a stable order (embeddings, layers,
 * final norm, head). Biases follow their weight; Qwen3's q/k norms follow k_proj.
 * `lm_head.weight` is absent when the embeddings are tied.
 */
export function llamaParameterShapes(config: LlamaConfig): Map<string, number[]> {
  validateConfig(config);
  const arch = describeArchitecture(config);
  const shapes = new Map<string, number[]>();
  const hidden = config.hidden_size;
  const addLinear = (layer: number, m: LinearModule): void => {
    const shape = linearShape(config, m);
    shapes.set(linearWeightName(layer, m), shape);
    if (arch.biased.has(m)) shapes.set(linearBiasName(layer, m), [shape[0]]);
  };
  shapes.set('model.embed_tokens.weight', [config.vocab_size, hidden]);
  for (let i = 0; i < config.num_hidden_layers; i++) {
    shapes.set(`model.layers.${i}.input_layernorm.weight`, [hidden]);
    for (const m of LINEAR_MODULES.slice(0, 4)) addLinear(i, m);
    if (arch.qkNorm) {
      shapes.set(qkNormName(i, 'q_norm'), [arch.headDim]);
      shapes.set(qkNormName(i, 'k_norm'), [arch.headDim]);
    }
    shapes.set(`model.layers.${i}.post_attention_layernorm.weight`, [hidden]);
    for (const m of LINEAR_MODULES.slice(4)) addLinear(i, m);
  }
  shapes.set('model.norm.weight', [hidden]);
  if (!config.tie_word_embeddings) shapes.set('lm_head.weight', [config.vocab_size, hidden]);
  return shapes;
}

/** Fresh parameters, initialised as Hugging Face does (init-parameter.ts). */
export function initLlamaParameters(kernels: Kernels, config: LlamaConfig, seed: number, requiresGrad = true): Map<string, Tensor> {
  const params = new Map<string, Tensor>();
  for (const [name, shape] of llamaParameterShapes(config)) {
    const t = Tensor.parameter(kernels, shape, requiresGrad);
    initParameter(t.data, name, seed);
    params.set(name, t);
  }
  return params;
}

function validateConfig(config: LlamaConfig): void {
  const fields: Array<keyof LlamaConfig> = ['hidden_size', 'num_hidden_layers', 'num_attention_heads', 'num_key_value_heads', 'intermediate_size', 'vocab_size'];
  for (const f of fields) {
    const v = config[f];
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
      throw new TroupeError('config', `LlamaConfig.${f} must be a positive integer, got ${String(v)}`);
    }
  }
  const hd = headDim(config);
  if (!Number.isInteger(hd) || hd <= 0) {
    throw new TroupeError('config', config.head_dim === undefined
      ? `hidden_size ${config.hidden_size} is not divisible by num_attention_heads ${config.num_attention_heads}; choose heads that divide the hidden size or set head_dim`
      : `head_dim must be a positive integer, got ${String(config.head_dim)}`);
  }
  if (hd % 2 !== 0) {
    throw new TroupeError('config', `head dimension ${hd} must be even for rotary embeddings`);
  }
  if (config.num_attention_heads % config.num_key_value_heads !== 0) {
    throw new TroupeError('config', `num_attention_heads ${config.num_attention_heads} must be a multiple of num_key_value_heads ${config.num_key_value_heads} (grouped-query attention); use a divisor such as 1 or ${config.num_attention_heads}`);
  }
}
