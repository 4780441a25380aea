/**
 * How the supported decoder families differ, as data the layers consult: which projections
 * carry biases, whether queries and keys get a per-head RMSNorm before RoPE, the head size
 * and the RoPE frequency table. Everything else (pre-norm residual blocks, SwiGLU, grouped-
 * query attention, tied or untied head) is shared. Adding a family means one entry in
 * FAMILIES, not a branch in the model code.
 */
import { headDim, type LlamaConfig, type ModelType } from './llama-config.js';
import type { LinearModule } from './llama-params.js';
import { ropeInverseFrequencies } from './rope-frequencies.js';

const ATTENTION: readonly LinearModule[] = ['q_proj', 'k_proj', 'v_proj', 'o_proj'];
const MLP: readonly LinearModule[] = ['gate_proj', 'up_proj', 'down_proj'];

/** One family's fixed traits and how it reads its optional config flags. */
export interface Family {
  /** The transformers class name written to `architectures`. */
  readonly architecture: string;
  /** Projections with a bias vector for this config. */
  readonly biased: (config: LlamaConfig) => readonly LinearModule[];
  /** Per-head RMSNorm of queries and keys before RoPE (`q_norm`, `k_norm`). */
  readonly qkNorm: boolean;
  /** head_dim when config.json leaves it out (transformers' config default). */
  readonly defaultHeadDim: (hidden: number, heads: number) => number;
}

export const FAMILIES: Record<ModelType, Family> = {
  llama: {
    architecture: 'LlamaForCausalLM',
    biased: (c) => [...(c.attention_bias ? ATTENTION : []), ...(c.mlp_bias ? MLP : [])],
    qkNorm: false,
    defaultHeadDim: (hidden, heads) => hidden / heads,
  },
  qwen2: {
    architecture: 'Qwen2ForCausalLM',
    biased: () => ['q_proj', 'k_proj', 'v_proj'],
    qkNorm: false,
    defaultHeadDim: (hidden, heads) => hidden / heads,
  },
  qwen3: {
    architecture: 'Qwen3ForCausalLM',
    biased: (c) => (c.attention_bias ? ATTENTION : []),
    qkNorm: true,
    defaultHeadDim: () => 128,
  },
};

/** What the layers need to know about a config beyond its sizes. */
export interface Architecture {
  readonly headDim: number;
  /** Projections that add a bias `....{module}.bias` after x W^T. */
  readonly biased: ReadonlySet<LinearModule>;
  readonly qkNorm: boolean;
  /** RoPE inverse frequencies, headDim/2 entries (rope-frequencies.ts). */
  readonly invFreq: Float32Array;
}

export function describeArchitecture(config: LlamaConfig): Architecture {
  const family = FAMILIES[config.model_type];
  const hd = headDim(config);
  return {
    headDim: hd,
    biased: new Set(family.biased(config)),
    qkNorm: family.qkNorm,
    invFreq: ropeInverseFrequencies({ headDim: hd, theta: config.rope_theta, scaling: config.rope_scaling }),
  };
}

/** Qwen3's per-head norm weights, [headDim] each. */
export function qkNormName(layer: number, which: 'q_norm' | 'k_norm'): string {
  return `model.layers.${layer}.self_attn.${which}.weight`;
}
