/**
 * An independent Llama / Qwen2 / Qwen3 forward pass: plain float64 loops over a checkpoint's
 * tensors, written from the Hugging Face conventions alone (not from Troupe's engine), so
 * that it can serve as the oracle for the engine's logprobs. Slow on purpose: clarity over
 * speed. It reads the architecture off the tensors themselves: a projection bias is added
 * when the checkpoint has one, q/k norms applied when it has them.
 *
 * Conventions (transformers' LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM):
 * - RMSNorm: x / sqrt(mean(x^2) + eps) * weight.
 * - Linear: W x + b, W stored [out, in].
 * - Qwen3: each head of q and k is RMSNormed (weight [d]) before RoPE.
 * - RoPE "rotate_half": within each head, pair i is (i, i + d/2), rotated by the angle
 *   position * invFreq[i] (theta^(-2i/d), or Llama 3's rescaled table).
 * - Grouped-query attention: query head h reads key/value head floor(h / (heads / kvHeads))
 *   (repeat_kv repeats each kv head for consecutive query heads); scores / sqrt(d); causal.
 * - MLP: down(silu(gate(x)) * up(x)). Pre-norm residual blocks, final norm, then lm_head
 *   (or the embedding matrix when tie_word_embeddings).
 *
 *   const logprobs = referenceLogprobs(loadCheckpoint(dir), [1, 17, 5]); // 2 numbers
 */
import { TroupeError } from '../../util/errors.js';
import { headDim, type LlamaConfig } from '../model/llama-config.js';
import { ropeInverseFrequencies } from '../model/rope-frequencies.js';
import type { NamedTensor, TensorMap } from './types.js';

type Vec = Float64Array;

function weight(tensors: TensorMap, name: string): Float32Array {
  const tensor: NamedTensor | undefined = tensors.get(name);
  if (tensor === undefined) throw new TroupeError('checkpoint', `reference forward: tensor ${name} is missing`);
  return tensor.data;
}

/** y = W x (+ b) for W stored [out, in] row-major. */
function linear(w: Float32Array, x: Vec, out: number, bias?: Float32Array): Vec {
  const inner = x.length;
  const y = new Float64Array(out);
  for (let o = 0; o < out; o++) {
    let sum = bias === undefined ? 0 : (bias[o] as number);
    const row = o * inner;
    for (let i = 0; i < inner; i++) sum += (w[row + i] as number) * (x[i] as number);
    y[o] = sum;
  }
  return y;
}

function rmsNorm(x: Vec, w: Float32Array, eps: number): Vec {
  let sumSquares = 0;
  for (const v of x) sumSquares += v * v;
  const scale = 1 / Math.sqrt(sumSquares / x.length + eps);
  return x.map((v, i) => v * scale * (w[i] as number));
}

/** RMSNorm of each d-wide head of x ([heads * d]) with the shared weight [d]. */
function headRmsNorm(x: Vec, w: Float32Array, d: number, eps: number): Vec {
  const out = new Float64Array(x.length);
  for (let start = 0; start < x.length; start += d) out.set(rmsNorm(x.subarray(start, start + d), w, eps), start);
  return out;
}

/** Rotates each head of `x` ([heads * d]) in place for position `pos` (exported for tests). */
export function rotate(x: Vec, heads: number, d: number, pos: number, invFreq: Float32Array): void {
  const half = d / 2;
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < half; i++) {
      const angle = pos * (invFreq[i] as number);
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const a = x[h * d + i] as number;
      const b = x[h * d + i + half] as number;
      x[h * d + i] = a * cos - b * sin;
      x[h * d + i + half] = b * cos + a * sin;
    }
  }
}

/** Logits (vocab_size each) at every position of `ids`. */
export function referenceLogits(model: { config: LlamaConfig; tensors: TensorMap }, ids: readonly number[]): Vec[] {
  const { config: c, tensors } = model;
  const hidden = c.hidden_size;
  const heads = c.num_attention_heads;
  const kvHeads = c.num_key_value_heads;
  const d = headDim(c);
  const group = heads / kvHeads;
  const invFreq = ropeInverseFrequencies({ headDim: d, theta: c.rope_theta, scaling: c.rope_scaling });
  const bias = (name: string): Float32Array | undefined => tensors.get(`${name}.bias`)?.data;
  const proj = (name: string, x: Vec, out: number): Vec => linear(weight(tensors, `${name}.weight`), x, out, bias(name));
  const maybeHeadNorm = (name: string, x: Vec): Vec =>
    tensors.has(name) ? headRmsNorm(x, weight(tensors, name), d, c.rms_norm_eps) : x;
  const embed = weight(tensors, 'model.embed_tokens.weight');
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= c.vocab_size) throw new TroupeError('input', `token id ${id} is outside 0..${c.vocab_size - 1}`);
  }
  let xs: Vec[] = ids.map((id) => Float64Array.from(embed.subarray(id * hidden, (id + 1) * hidden)));

  for (let layer = 0; layer < c.num_hidden_layers; layer++) {
    const p = `model.layers.${layer}`;
    const keys: Vec[] = [];
    const values: Vec[] = [];
    const queries: Vec[] = [];
    xs.forEach((x, pos) => {
      const h = rmsNorm(x, weight(tensors, `${p}.input_layernorm.weight`), c.rms_norm_eps);
      const q = maybeHeadNorm(`${p}.self_attn.q_norm.weight`, proj(`${p}.self_attn.q_proj`, h, heads * d));
      const k = maybeHeadNorm(`${p}.self_attn.k_norm.weight`, proj(`${p}.self_attn.k_proj`, h, kvHeads * d));
      rotate(q, heads, d, pos, invFreq);
      rotate(k, kvHeads, d, pos, invFreq);
      queries.push(q);
      keys.push(k);
      values.push(proj(`${p}.self_attn.v_proj`, h, kvHeads * d));
    });
    xs = xs.map((x, t) => {
      const attended = new Float64Array(heads * d);
      for (let h = 0; h < heads; h++) {
        const kv = Math.floor(h / group);
        const scores = new Float64Array(t + 1);
        let max = -Infinity;
        for (let s = 0; s <= t; s++) {
          let dot = 0;
          for (let i = 0; i < d; i++) dot += (queries[t] as Vec)[h * d + i]! * (keys[s] as Vec)[kv * d + i]!;
          scores[s] = dot / Math.sqrt(d);
          max = Math.max(max, scores[s] as number);
        }
        let total = 0;
        for (let s = 0; s <= t; s++) total += scores[s] = Math.exp((scores[s] as number) - max);
        for (let s = 0; s <= t; s++) {
          const weightS = (scores[s] as number) / total;
          for (let i = 0; i < d; i++) attended[h * d + i]! += weightS * (values[s] as Vec)[kv * d + i]!;
        }
      }
      const projected = proj(`${p}.self_attn.o_proj`, attended, hidden);
      const afterAttention = x.map((v, i) => v + projected[i]!);
      const h2 = rmsNorm(afterAttention, weight(tensors, `${p}.post_attention_layernorm.weight`), c.rms_norm_eps);
      const gate = proj(`${p}.mlp.gate_proj`, h2, c.intermediate_size);
      const up = proj(`${p}.mlp.up_proj`, h2, c.intermediate_size);
      const act = gate.map((g, i) => (g / (1 + Math.exp(-g))) * up[i]!);
      const down = proj(`${p}.mlp.down_proj`, act, hidden);
      return afterAttention.map((v, i) => v + down[i]!);
    });
  }
  const head = weight(tensors, c.tie_word_embeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  return xs.map((x) => linear(head, rmsNorm(x, weight(tensors, 'model.norm.weight'), c.rms_norm_eps), c.vocab_size));
}

/** log p(ids[t] | ids[<t]) for t = 1 .. ids.length-1 (so ids.length - 1 numbers). */
export function referenceLogprobs(model: { config: LlamaConfig; tensors: TensorMap }, ids: readonly number[]): number[] {
  const logits = referenceLogits(model, ids.slice(0, -1));
  return logits.map((row, t) => {
    let max = -Infinity;
    for (const v of row) max = Math.max(max, v);
    let total = 0;
    for (const v of row) total += Math.exp(v - max);
    return (row[ids[t + 1] as number] as number) - max - Math.log(total);
  });
}
