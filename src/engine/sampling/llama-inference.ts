/**
 * Inference-only Llama forward over a LlamaModel's live weights: no tape, no gradients, a KV
 * cache per sequence, and preallocated scratch buffers reused across steps. It computes the
 * same function as LlamaModel.forward with the same kernels in the same order (RMSNorm,
 * x W^T + b, LoRA as + (alpha/r) (x A^T) B^T, per-head q/k RMSNorm where the architecture
 * has it, RoPE, scores = Q K^T, scaled causal softmax, P V, SwiGLU), so sampled logprobs
 * match the learner's to float rounding.
 *
 * One call runs a batch of *segments*: consecutive new positions of one sequence (a prompt
 * of T tokens in prefill, one token per sequence in decoding). Rows are the new tokens of
 * all segments; every projection is one matmul over all rows, attention runs per segment
 * against that sequence's cache. Rows must be grouped by adapter (contiguous), so each
 * adapter's low-rank update is one matmul pair per module.
 */
import { TroupeError } from '../../util/errors.js';
import { BufferPool } from '../autograd/buffer-pool.js';
import type { CacheAttentionArgs, Kernels } from '../kernels/types.js';
import { qkNormName } from '../model/architecture.js';
import type { LlamaModel } from '../model/llama-model.js';
import { linearBiasName, linearShape, linearWeightName, type LinearModule } from '../model/llama-params.js';
import type { Tensor } from '../tensor.js';
import { gatherWeightRows, weightMatmul } from '../weight-ops.js';
import { SequenceCache } from './kv-cache.js';

/** New tokens for one sequence, appended at positions cache.length, cache.length + 1, ... */
export interface Segment {
  readonly tokens: readonly number[];
  readonly cache: SequenceCache;
  /** LoRA adapter name, or undefined for the base model. */
  readonly adapter?: string;
}

/** Scratch buffers for up to `rows` rows; reallocated larger when a call needs more. */
class Scratch {
  buffers = new Map<string, Float32Array>();
  constructor(private readonly kernels: Kernels) {}

  get(name: string, length: number): Float32Array {
    let buffer = this.buffers.get(name);
    if (buffer === undefined || buffer.length < length) {
      if (buffer !== undefined) this.kernels.free(buffer);
      buffer = this.kernels.alloc(length);
      this.buffers.set(name, buffer);
    }
    return buffer.subarray(0, length);
  }

  free(): void {
    for (const b of this.buffers.values()) this.kernels.free(b);
    this.buffers.clear();
  }
}

/**
 * Most bytes of freed KV-cache arrays kept for the next caches (kv-cache.ts says why). A step of
 * the tiny learning runs' rollout keeps ~16 MB of caches live at once; a 0.6B-wide model's cache
 * of a few hundred positions is larger than the whole cap, and its arrays go back to the kernels
 * (whose page cache keeps large blocks), so the pool never holds big models' memory.
 */
const CACHE_POOL_BYTES = 64 * 2 ** 20;

export class LlamaInference {
  readonly model: LlamaModel;
  private readonly kernels: Kernels;
  private readonly scratch: Scratch;
  private readonly caches: BufferPool;

  constructor(model: LlamaModel) {
    this.model = model;
    this.kernels = model.kernels;
    this.scratch = new Scratch(model.kernels);
    this.caches = new BufferPool(model.kernels, { maxBytes: CACHE_POOL_BYTES });
  }

  /** An empty cache able to hold `capacity` positions (capped by the model's context); `free()` recycles it. */
  newCache(capacity: number): SequenceCache {
    const c = this.model.config;
    return new SequenceCache(this.caches, { layers: c.num_hidden_layers, kvHeads: c.num_key_value_heads, headDim: this.model.arch.headDim }, capacity);
  }

  /**
   * Runs the segments' new tokens through the model, appending their keys and values to the
   * caches, and returns the logits (vocab each) of the LAST new token of every segment,
   * segments in order: a (segments.length, vocab) view valid until the next call.
   */
  forward(segments: readonly Segment[]): Float32Array {
    const c = this.model.config;
    const arch = this.model.arch;
    const k = this.kernels;
    const hidden = c.hidden_size;
    const hd = arch.headDim;
    const nh = c.num_attention_heads;
    const nkv = c.num_key_value_heads;
    const qw = nh * hd;
    const kw = nkv * hd;
    const inter = c.intermediate_size;
    const V = c.vocab_size;

    let N = 0;
    for (const s of segments) {
      if (s.tokens.length === 0) throw new TroupeError('invariant', 'internal invariant broken: inference segment without tokens');
      if (s.cache.length + s.tokens.length > s.cache.capacity) {
        throw new TroupeError('invariant', `internal invariant broken: ${s.cache.length + s.tokens.length} positions exceed the cache capacity ${s.cache.capacity}`);
      }
      N += s.tokens.length;
    }
    const S = this.scratch;
    const x = S.get('x', N * hidden);
    const h = S.get('h', N * hidden);
    const q = S.get('q', N * qw);
    const kk = S.get('k', N * kw);
    const vv = S.get('v', N * kw);
    const att = S.get('att', N * qw);
    const o = S.get('o', N * hidden);
    const gate = S.get('gate', N * inter);
    const up = S.get('up', N * inter);
    const act = S.get('act', N * inter);
    const invRms = S.get('invRms', N);
    const positions = new Int32Array(N);

    // Embeddings and positions; adapter groups as contiguous row ranges.
    const embed = this.weight('model.embed_tokens.weight');
    const groups: Array<{ start: number; end: number; adapter: string }> = [];
    let row = 0;
    for (const s of segments) {
      for (let t = 0; t < s.tokens.length; t++, row++) {
        const id = s.tokens[t] as number;
        if (!Number.isInteger(id) || id < 0 || id >= V) throw new TroupeError('input', `token id ${id} is outside the vocabulary 0..${V - 1}`);
        gatherWeightRows(embed, [id], x.subarray(row * hidden, (row + 1) * hidden));
        positions[row] = s.cache.length + t;
      }
      if (s.adapter !== undefined) {
        const last = groups[groups.length - 1];
        if (last !== undefined && last.adapter === s.adapter && last.end === row - s.tokens.length) last.end = row;
        else groups.push({ start: row - s.tokens.length, end: row, adapter: s.adapter });
      }
    }
    // Each layer's attention in one kernel call where the backend has it.
    const cached = k.cacheAttention === undefined ? undefined : this.cacheAttentionArgs(segments);
    const seen = new Set<string>();
    for (const g of groups) {
      if (seen.has(g.adapter)) throw new TroupeError('invariant', `internal invariant broken: rows of adapter '${g.adapter}' are not contiguous`);
      seen.add(g.adapter);
    }

    for (let layer = 0; layer < c.num_hidden_layers; layer++) {
      // Attention block.
      k.rmsNorm(x, this.param(`model.layers.${layer}.input_layernorm.weight`), h, invRms, N, hidden, c.rms_norm_eps);
      this.project(layer, 'q_proj', h, q, N, groups);
      this.project(layer, 'k_proj', h, kk, N, groups);
      this.project(layer, 'v_proj', h, vv, N, groups);
      if (arch.qkNorm) {
        // Per-head norms (Qwen3); kernels do not promise in-place rmsNorm, so via a scratch row.
        const normed = S.get('headNormed', N * qw);
        k.rmsNorm(q, this.param(qkNormName(layer, 'q_norm')), normed, S.get('invRmsHeads', N * nh), N * nh, hd, c.rms_norm_eps);
        q.set(normed);
        k.rmsNorm(kk, this.param(qkNormName(layer, 'k_norm')), normed, S.get('invRmsHeads', N * nh), N * nkv, hd, c.rms_norm_eps);
        kk.set(normed.subarray(0, N * kw));
      }
      k.rope(q, positions, N, nh, hd, arch.invFreq, false);
      k.rope(kk, positions, N, nkv, hd, arch.invFreq, false);
      row = 0;
      for (const s of segments) {
        s.cache.writeRows(layer, s.cache.length, kk, vv, row, s.tokens.length);
        row += s.tokens.length;
      }
      if (cached !== undefined) {
        k.cacheAttention!({ ...cached, q, out: att, kCaches: segments.map((s) => s.cache.k[layer]!), vCaches: segments.map((s) => s.cache.v[layer]!) });
      } else {
        row = 0;
        for (const s of segments) {
          this.attend(layer, s, q, att, row);
          row += s.tokens.length;
        }
      }
      this.project(layer, 'o_proj', att, o, N, groups);
      k.add(x, o, x);
      // MLP block.
      k.rmsNorm(x, this.param(`model.layers.${layer}.post_attention_layernorm.weight`), h, invRms, N, hidden, c.rms_norm_eps);
      this.project(layer, 'gate_proj', h, gate, N, groups);
      this.project(layer, 'up_proj', h, up, N, groups);
      k.swiglu(gate, up, act);
      this.project(layer, 'down_proj', act, o, N, groups);
      k.add(x, o, x);
    }
    for (const s of segments) s.cache.length += s.tokens.length;

    // Final norm and head, only for the last row of each segment.
    const M = segments.length;
    const last = S.get('last', M * hidden);
    row = 0;
    segments.forEach((s, i) => {
      row += s.tokens.length;
      last.set(x.subarray((row - 1) * hidden, row * hidden), i * hidden);
    });
    const normed = S.get('normed', M * hidden);
    k.rmsNorm(last, this.param('model.norm.weight'), normed, S.get('invRmsLast', M), M, hidden, c.rms_norm_eps);
    const logits = S.get('logits', M * V);
    const head = this.weight(c.tie_word_embeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
    weightMatmul(k, { a: normed, w: head, c: logits, m: M, n: V, k: hidden, transB: true });
    segments.forEach((s, i) => this.addHeadLora(s.adapter, normed.subarray(i * hidden, (i + 1) * hidden), logits.subarray(i * V, (i + 1) * V)));
    return logits;
  }

  /** Frees the scratch buffers and the recycled cache arrays (the model and live caches are owned elsewhere). */
  dispose(): void {
    this.scratch.free();
    this.caches.clear();
  }

  /** logits += (alpha/r) B (A x) for one row, when the segment's adapter has LoRA on the output head. */
  private addHeadLora(name: string | undefined, x: Float32Array, logits: Float32Array): void {
    const adapter = name === undefined ? undefined : this.model.adapters.get(name);
    const pair = adapter?.headWeights();
    if (pair === undefined) return;
    const r = adapter!.config.r;
    const down = this.scratch.get('loraHeadDown', r);
    const delta = this.scratch.get('loraHeadUp', logits.length);
    this.kernels.matmul({ a: x, b: pair.a.data, c: down, m: 1, n: r, k: x.length, transB: true });
    this.kernels.matmul({ a: down, b: pair.b.data, c: delta, m: 1, n: logits.length, k: r, transB: true });
    this.kernels.axpy(adapter!.scale, delta, logits);
  }

  /** out (N, outF) = input (N, inF) W^T (+ b), plus each adapter group's (alpha/r) (x A^T) B^T. */
  private project(layer: number, module: LinearModule, input: Float32Array, out: Float32Array, N: number, groups: ReadonlyArray<{ start: number; end: number; adapter: string }>): void {
    const [outF, inF] = linearShape(this.model.config, module);
    // As in autograd/linear.ts: the bias first, the matmul accumulating onto it.
    const biased = this.model.arch.biased.has(module);
    if (biased) {
      const bias = this.param(linearBiasName(layer, module));
      for (let r = 0; r < N; r++) out.set(bias, r * outF);
    }
    weightMatmul(this.kernels, { a: input, w: this.weight(linearWeightName(layer, module)), c: out, m: N, n: outF, k: inF, transB: true, accumulate: biased });
    for (const g of groups) {
      const adapter = this.model.adapters.get(g.adapter);
      if (adapter === undefined) {
        throw new TroupeError('config', `unknown LoRA adapter '${g.adapter}'; available: ${[...this.model.adapters.keys()].join(', ') || '(none)'}`);
      }
      const lora = adapter.weights(layer, module);
      if (lora === undefined) continue;
      const rows = g.end - g.start;
      const r = adapter.config.r;
      const down = this.scratch.get('loraDown', rows * r);
      const delta = this.scratch.get('loraUp', rows * outF);
      this.kernels.matmul({ a: input.subarray(g.start * inF, g.end * inF), b: lora.a.data, c: down, m: rows, n: r, k: inF, transB: true });
      this.kernels.matmul({ a: down, b: lora.b.data, c: delta, m: rows, n: outF, k: r, transB: true });
      this.kernels.axpy(adapter.scale, delta, out.subarray(g.start * outF, g.end * outF));
    }
  }

  /** cacheAttention's arguments but the layer's arrays: what `attend` computes for each segment. */
  private cacheAttentionArgs(segments: readonly Segment[]): Omit<CacheAttentionArgs, 'q' | 'out' | 'kCaches' | 'vCaches'> {
    const c = this.model.config;
    const meta = new Int32Array(4 * segments.length);
    let row = 0;
    segments.forEach((s, i) => {
      meta[4 * i] = row;
      meta[4 * i + 1] = s.tokens.length;
      meta[4 * i + 2] = s.cache.length + s.tokens.length;
      meta[4 * i + 3] = s.cache.capacity;
      row += s.tokens.length;
    });
    const hd = this.model.arch.headDim;
    return { meta, heads: c.num_attention_heads, kvHeads: c.num_key_value_heads, headDim: hd, scale: 1 / Math.sqrt(hd) };
  }

  /** Causal attention of one segment's new rows (starting at `row`) over its cache. */
  private attend(layer: number, s: Segment, q: Float32Array, out: Float32Array, row: number): void {
    const c = this.model.config;
    const hd = this.model.arch.headDim;
    const nh = c.num_attention_heads;
    const rep = nh / c.num_key_value_heads;
    const qw = nh * hd;
    const R = s.tokens.length;
    const keys = s.cache.length + R; // positions visible to the last new row
    const scale = 1 / Math.sqrt(hd);
    const scores = this.scratch.get('scores', R * keys);
    const qh = R === 1 ? undefined : this.scratch.get('qh', R * hd);
    const oh = R === 1 ? undefined : this.scratch.get('oh', R * hd);
    for (let head = 0; head < nh; head++) {
      const kv = s.cache.head(layer, Math.floor(head / rep), keys);
      if (qh === undefined || oh === undefined) {
        // One new row: its query and output slices are already contiguous.
        const at = row * qw + head * hd;
        this.kernels.matmul({ a: q.subarray(at, at + hd), b: kv.k, c: scores, m: 1, n: keys, k: hd, transB: true });
        this.kernels.causalSoftmax(scores, 1, keys, keys - 1, scale);
        this.kernels.matmul({ a: scores, b: kv.v, c: out.subarray(at, at + hd), m: 1, n: hd, k: keys });
        continue;
      }
      for (let t = 0; t < R; t++) qh.set(q.subarray((row + t) * qw + head * hd, (row + t) * qw + head * hd + hd), t * hd);
      this.kernels.matmul({ a: qh, b: kv.k, c: scores, m: R, n: keys, k: hd, transB: true });
      this.kernels.causalSoftmax(scores, R, keys, keys - R, scale);
      this.kernels.matmul({ a: scores, b: kv.v, c: oh, m: R, n: hd, k: keys });
      for (let t = 0; t < R; t++) out.set(oh.subarray(t * hd, t * hd + hd), (row + t) * qw + head * hd);
    }
  }

  /** A float32 parameter's values (norm weights). */
  private param(name: string): Float32Array {
    return this.weight(name).data;
  }

  /** A parameter tensor, for weight-ops (its storage may be bf16). */
  private weight(name: string): Tensor {
    const t = this.model.parameters.get(name);
    if (t === undefined) throw new TroupeError('invariant', `internal invariant broken: parameter '${name}' is missing`);
    return t;
  }
}

