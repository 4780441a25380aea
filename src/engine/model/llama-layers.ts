import { attention } from '../autograd/attention.js';
import { add } from '../autograd/elementwise.js';
import { linear } from '../autograd/linear.js';
import { loraLinear } from '../autograd/lora-linear.js';
import { rmsNorm } from '../autograd/rms-norm.js';
import { rope } from '../autograd/rope.js';
import { swiglu } from '../autograd/swiglu.js';
import type { Tape } from '../autograd/tape.js';
import type { Tensor } from '../tensor.js';
import { qkNormName, type Architecture } from './architecture.js';
import type { LlamaConfig } from './llama-config.js';
import { linearBiasName, linearWeightName, type LinearModule } from './llama-params.js';
import type { LoraAdapter } from './lora.js';

/** A layer's keys and values after RoPE, (B*T, kvHeads*hd): what a later block attends to. */
export interface LayerKV {
  readonly k: Tensor;
  readonly v: Tensor;
}

/**
 * How the B*T rows of the hidden state form sequences. `prefix` gives, per layer, keys and
 * values that precede each sequence (a shared prompt or a KV cache; see AttentionPrefix).
 */
export interface SequenceLayout {
  readonly batch: number;
  readonly seqLen: number;
  /** Position of each of the B*T rows (RoPE angle). */
  readonly positions: Int32Array;
  readonly prefix?: {
    readonly kv: readonly LayerKV[];
    readonly seqLen: number;
    readonly lengths: readonly number[];
    readonly index: readonly number[];
  };
}

/**
 * What a layer reads: the model's parameters by HF name, its config, the family traits
 * derived from it (biases, q/k norms, RoPE table), an optional adapter.
 */
export interface LayerWeights {
  readonly config: LlamaConfig;
  readonly arch: Architecture;
  readonly parameters: ReadonlyMap<string, Tensor>;
  readonly adapter?: LoraAdapter;
}

/** x W^T (+ b), plus (alpha/r) (x A^T) B^T when the active adapter targets this module. */
export function project(tape: Tape, x: Tensor, weights: LayerWeights, layer: number, module: LinearModule): Tensor {
  const bias = weights.arch.biased.has(module) ? weights.parameters.get(linearBiasName(layer, module))! : undefined;
  const w = weights.parameters.get(linearWeightName(layer, module))!;
  const lora = weights.adapter?.weights(layer, module);
  // One fused op with an adapter: it keeps half the activations of linear + linear + addScaled.
  return lora ? loraLinear(tape, x, w, bias, { ...lora, scale: weights.adapter!.scale }) : linear(tape, x, w, bias);
}

/**
 * Self-attention block: RMSNorm -> q, k, v (-> per-head q/k RMSNorm) -> RoPE -> causal GQA
 * attention -> o_proj.
 */
function selfAttention(tape: Tape, h: Tensor, w: LayerWeights, layer: number, layout: SequenceLayout): { out: Tensor; kv: LayerKV } {
  const c = w.config;
  const hd = w.arch.headDim;
  const x = rmsNorm(tape, h, w.parameters.get(`model.layers.${layer}.input_layernorm.weight`)!, c.rms_norm_eps);
  const headNorm = (t: Tensor, which: 'q_norm' | 'k_norm'): Tensor =>
    w.arch.qkNorm ? rmsNorm(tape, t, w.parameters.get(qkNormName(layer, which))!, c.rms_norm_eps) : t;
  const ropeOf = (t: Tensor, heads: number): Tensor => rope(tape, t, { positions: layout.positions, heads, headDim: hd, invFreq: w.arch.invFreq });
  const q = ropeOf(headNorm(project(tape, x, w, layer, 'q_proj'), 'q_norm'), c.num_attention_heads); // (B*T, nh*hd)
  const k = ropeOf(headNorm(project(tape, x, w, layer, 'k_proj'), 'k_norm'), c.num_key_value_heads); // (B*T, nkv*hd)
  const v = project(tape, x, w, layer, 'v_proj'); // (B*T, nkv*hd)
  const p = layout.prefix;
  const y = attention(tape, q, k, v, {
    batch: layout.batch,
    seqLen: layout.seqLen,
    heads: c.num_attention_heads,
    kvHeads: c.num_key_value_heads,
    headDim: hd,
    prefix: p ? { k: p.kv[layer]!.k, v: p.kv[layer]!.v, seqLen: p.seqLen, lengths: p.lengths, index: p.index } : undefined,
  }); // (B*T, nh*hd)
  return { out: project(tape, y, w, layer, 'o_proj'), kv: { k, v } }; // (B*T, hidden)
}

/** SwiGLU MLP block: RMSNorm -> down(silu(gate(x)) * up(x)). */
function mlp(tape: Tape, h: Tensor, w: LayerWeights, layer: number): Tensor {
  const x = rmsNorm(tape, h, w.parameters.get(`model.layers.${layer}.post_attention_layernorm.weight`)!, w.config.rms_norm_eps);
  const gated = swiglu(tape, project(tape, x, w, layer, 'gate_proj'), project(tape, x, w, layer, 'up_proj')); // (B*T, inter)
  return project(tape, gated, w, layer, 'down_proj'); // (B*T, hidden)
}

/** One pre-norm decoder layer with residuals: h + attn(h), then + mlp(.). */
export function decoderLayer(tape: Tape, h: Tensor, w: LayerWeights, layer: number, layout: SequenceLayout): { h: Tensor; kv: LayerKV } {
  const attn = selfAttention(tape, h, w, layer, layout);
  const h1 = add(tape, h, attn.out);
  return { h: add(tape, h1, mlp(tape, h1, w, layer)), kv: attn.kv };
}
