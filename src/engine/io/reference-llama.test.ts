import { test } from 'node:test';
import assert from 'node:assert/strict';
import { llamaConfig, type LlamaConfig } from '../model/llama-config.js';
import { randomLlamaTensors } from './random-tensors.js';
import { referenceLogits, referenceLogprobs, rotate } from './reference-llama.js';
import type { NamedTensor } from './types.js';

function close(actual: readonly number[], expected: readonly number[], tol: number): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((a, i) => assert.ok(Math.abs(a - (expected[i] as number)) <= tol, `index ${i}: ${a} vs ${expected[i]}`));
}

test('RoPE rotates pairs (i, i + d/2) by pos * invFreq[i]', () => {
  const x = new Float64Array([1, 2, 3, 4]);
  rotate(x, 1, 4, 3, Float32Array.from([1, 0.5]));
  const [c0, s0, c1, s1] = [Math.cos(3), Math.sin(3), Math.cos(1.5), Math.sin(1.5)];
  close(Array.from(x), [1 * c0 - 3 * s0, 2 * c1 - 4 * s1, 3 * c0 + 1 * s0, 4 * c1 + 2 * s1], 1e-12);
});

test('one token: attention passes v through, so logits follow the closed form', () => {
  // With a single position softmax is 1: out = o_proj(v_proj(norm(x))); check against that.
  const config = llamaConfig({ hidden: 4, layers: 1, heads: 2, intermediate: 3, vocab: 5, tied: true });
  const t = randomLlamaTensors(config, 9, 0.5);
  const w = (n: string) => t.get(n)!.data;
  const mat = (m: Float32Array, x: number[], rows: number) =>
    Array.from({ length: rows }, (_, r) => x.reduce((s, v, i) => s + m[r * x.length + i]! * v, 0));
  const norm = (x: number[]) => {
    const s = 1 / Math.sqrt(x.reduce((a, v) => a + v * v, 0) / x.length + config.rms_norm_eps);
    return x.map((v) => v * s); // norm weights are ones
  };
  const x0 = Array.from(w('model.embed_tokens.weight').subarray(12, 16));
  const attn = mat(w('model.layers.0.self_attn.o_proj.weight'), mat(w('model.layers.0.self_attn.v_proj.weight'), norm(x0), 4), 4);
  const x1 = x0.map((v, i) => v + attn[i]!);
  const h = norm(x1);
  const g = mat(w('model.layers.0.mlp.gate_proj.weight'), h, 3);
  const u = mat(w('model.layers.0.mlp.up_proj.weight'), h, 3);
  const mlp = mat(w('model.layers.0.mlp.down_proj.weight'), g.map((a, i) => (a / (1 + Math.exp(-a))) * u[i]!), 4);
  const x2 = x1.map((v, i) => v + mlp[i]!);
  const expected = mat(w('model.embed_tokens.weight'), norm(x2), 5);
  close(Array.from(referenceLogits({ config, tensors: t }, [3])[0]!), expected, 1e-5);
});

test('grouped-query heads read kv head floor(h / group) (HF repeat_kv)', () => {
  // A GQA model equals a full multi-head model whose k/v weights repeat each kv head for
  // consecutive query heads; a wrong head mapping breaks the equality.
  const gqa = llamaConfig({ hidden: 16, layers: 2, heads: 4, kvHeads: 2, intermediate: 8, vocab: 11 });
  const full: LlamaConfig = { ...gqa, num_key_value_heads: 4 };
  const tensors = randomLlamaTensors(gqa, 4, 0.3);
  const expanded = new Map<string, NamedTensor>(tensors);
  const d = 4;
  for (const [name, tensor] of tensors) {
    if (!/\.(k|v)_proj\.weight$/.test(name)) continue;
    const data = new Float32Array(16 * 16);
    for (let h = 0; h < 4; h++) data.set(tensor.data.subarray(Math.floor(h / 2) * d * 16, (Math.floor(h / 2) + 1) * d * 16), h * d * 16);
    expanded.set(name, { shape: [16, 16], data });
  }
  const ids = [1, 5, 7, 2, 9, 0];
  close(referenceLogprobs({ config: gqa, tensors }, ids), referenceLogprobs({ config: full, tensors: expanded }, ids), 1e-10);
});

test('tied head equals an untied head holding a copy of the embedding; logprobs normalise', () => {
  const tied = llamaConfig({ hidden: 8, layers: 1, heads: 2, intermediate: 8, vocab: 7, tied: true });
  const tensors = randomLlamaTensors(tied, 2, 0.3);
  const untied = new Map(tensors).set('lm_head.weight', tensors.get('model.embed_tokens.weight')!);
  const ids = [3, 1, 4, 1, 5];
  const a = referenceLogprobs({ config: tied, tensors }, ids);
  close(a, referenceLogprobs({ config: { ...tied, tie_word_embeddings: false }, tensors: untied }, ids), 1e-12);
  assert.equal(a.length, 4);
  const logits = referenceLogits({ config: tied, tensors }, ids)[2]!;
  const max = Math.max(...logits);
  const logZ = max + Math.log(logits.reduce((s, v) => s + Math.exp(v - max), 0));
  assert.ok(Math.abs(a[2]! - (logits[ids[3]!]! - logZ)) < 1e-12);
  // causal: a later token does not change earlier logprobs
  close(referenceLogprobs({ config: tied, tensors }, [3, 1, 4, 6]).slice(0, 2), a.slice(0, 2), 1e-12);
});
