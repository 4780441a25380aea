import { TroupeError } from '../../util/errors.js';
import { concatRows, embedding, gatherRows } from '../autograd/embedding.js';
import { linear } from '../autograd/linear.js';
import { scale } from '../autograd/elementwise.js';
import { loraLinear } from '../autograd/lora-linear.js';
import { headLogprobs } from '../autograd/head-logprobs.js';
import { rmsNorm } from '../autograd/rms-norm.js';
import type { Tape } from '../autograd/tape.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor, type StorageDtype } from '../tensor.js';
import { describeArchitecture, type Architecture } from './architecture.js';
import type { LlamaConfig } from './llama-config.js';
import { decoderLayer, type LayerKV, type LayerWeights, type SequenceLayout } from './llama-layers.js';
import { initLlamaParameters, llamaParameterShapes } from './llama-params.js';
import { LoraAdapter, type LoraConfig } from './lora.js';
import { planScoring, planWholeSequences, type ScoringPair, type ScoringPlan, type WholeSequencePlan } from './scoring-plan.js';
import { planSharedTargetRows, planTargetRows, type TargetRow } from './target-rows-plan.js';
import { convertParameter, restoreParameters } from './weight-storage.js';

/** Per-token logprobs of a scored batch: pair b owns logprobs[offsets[b] .. offsets[b+1]). */
export interface TokenLogprobs {
  /** (N) differentiable logprobs of every response token, pairs concatenated. */
  readonly logprobs: Tensor;
  readonly offsets: readonly number[];
  /** (N) entropy of the model's distribution at each scored token (nats), when asked for. */
  readonly entropy?: Float32Array;
}

/** How tokenLogprobs scores. */
export interface ScoringOptions {
  /** LoRA adapter to apply; none = the base model. */
  readonly adapter?: string;
  /** Also compute each scored token's entropy. */
  readonly entropy?: boolean;
  /** Ids the sampler never produces (logit-mask.ts): left out of the softmax here too. */
  readonly logitMask?: ArrayLike<number>;
}

export interface ForwardOptions {
  /** (B) rows of T positions; default 0..T-1 for every row. */
  readonly positions?: readonly (readonly number[])[];
  /** Name of the LoRA adapter to apply (see addAdapter); none = the base model. */
  readonly adapter?: string;
}

/**
 * A Llama-family decoder over a Kernels instance: HF LlamaForCausalLM, Qwen2ForCausalLM or
 * Qwen3ForCausalLM semantics, by config.model_type (architecture.ts holds the differences).
 *
 *   const model = LlamaModel.create(kernels, llamaConfig({ hidden: 64, layers: 2, heads: 4,
 *     intermediate: 128, vocab: 64 }), { seed: 1 });
 *   const tape = new Tape(kernels);
 *   const logits = model.forward(tape, [[1, 2, 3]]);          // (B*T, vocab)
 *
 * `parameters` holds the weights by HF name (llama-config.ts lists them); checkpoint IO reads
 * and writes them there. LoRA adapters live beside the base in `adapters`.
 */
export class LlamaModel {
  readonly kernels: Kernels;
  readonly config: LlamaConfig;
  /** The family traits the layers consult (biases, q/k norms, head size, RoPE table). */
  readonly arch: Architecture;
  readonly parameters: Map<string, Tensor>;
  readonly adapters = new Map<string, LoraAdapter>();

  private constructor(kernels: Kernels, config: LlamaConfig, parameters: Map<string, Tensor>) {
    this.kernels = kernels;
    this.config = config;
    this.arch = describeArchitecture(config);
    this.parameters = parameters;
  }

  /** A freshly initialised model (normal(0, 0.02) weights, unit norms), all trainable. */
  static create(kernels: Kernels, config: LlamaConfig, options: { seed: number }): LlamaModel {
    return new LlamaModel(kernels, config, initLlamaParameters(kernels, config, options.seed));
  }

  /** A model whose weights are copied from `tensors` (e.g. a loaded safetensors file). */
  static fromTensors(kernels: Kernels, config: LlamaConfig, tensors: ReadonlyMap<string, { shape: readonly number[]; data: Float32Array }>): LlamaModel {
    const params = new Map<string, Tensor>();
    for (const [name, shape] of llamaParameterShapes(config)) {
      const source = tensors.get(name);
      if (!source) throw new TroupeError('checkpoint', `tensor '${name}' is missing; a ${config.num_hidden_layers}-layer model needs every tensor listed in llama-config.ts`);
      if (source.shape.length !== shape.length || source.shape.some((d, i) => d !== shape[i])) {
        throw new TroupeError('checkpoint', `tensor '${name}' has shape [${source.shape.join(', ')}] but the config needs [${shape.join(', ')}]`);
      }
      const t = Tensor.parameter(kernels, shape);
      t.data.set(source.data);
      params.set(name, t);
    }
    return new LlamaModel(kernels, config, params);
  }

  /**
   * A model over parameter tensors already in kernel memory (a streamed checkpoint load);
   * it takes ownership of them. Every parameter of the config must be there with its shape.
   */
  static fromParameters(kernels: Kernels, config: LlamaConfig, parameters: Map<string, Tensor>): LlamaModel {
    for (const [name, shape] of llamaParameterShapes(config)) {
      const t = parameters.get(name);
      if (!t || t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
        throw new TroupeError('invariant', `internal invariant broken: parameter '${name}' is missing or not [${shape.join(', ')}]`);
      }
    }
    return new LlamaModel(kernels, config, parameters);
  }

  /**
   * A copy with its own weights (no adapters). `trainable`: float32 weights with gradients;
   * otherwise a frozen copy that keeps this model's storage (a bf16 base stays bf16).
   */
  clone(options: { trainable: boolean }): LlamaModel {
    const params = new Map<string, Tensor>();
    for (const [name, t] of this.parameters) params.set(name, convertParameter(this.kernels, t, options.trainable ? 'f32' : t.dtype, options.trainable));
    return new LlamaModel(this.kernels, this.config, params);
  }

  /** 'bf16' when the big 2-D weights are stored as bf16 (a frozen base), else 'f32'. */
  get baseDtype(): StorageDtype {
    return this.param('model.embed_tokens.weight').dtype;
  }

  /**
   * Stores the big 2-D weights as bf16 (rounding to nearest even; the base must be frozen
   * first) or back as float32. Norms stay float32. Halves the memory of a frozen base.
   */
  setBaseDtype(dtype: StorageDtype): void {
    const trainable = [...this.parameters.values()].some((t) => t.requiresGrad);
    if (dtype === 'bf16' && trainable) {
      throw new TroupeError('config', 'a bf16 base cannot train; call freezeBase() first (LoRA mode), or keep the base float32 for full fine-tuning');
    }
    restoreParameters(this.kernels, this.parameters, dtype, trainable);
  }

  /** Logits (B*T, vocab) for B rows of T token ids. */
  forward(tape: Tape, tokens_B_T: readonly (readonly number[])[], options: ForwardOptions = {}): Tensor {
    const B = tokens_B_T.length;
    const T = B === 0 ? 0 : tokens_B_T[0]!.length;
    const tokens = new Int32Array(B * T);
    const positions = new Int32Array(B * T);
    tokens_B_T.forEach((row, b) => {
      if (row.length !== T) throw new TroupeError('input', `forward: row ${b} has ${row.length} tokens but row 0 has ${T}; pad rows to equal length`);
      tokens.set(row, b * T);
      const pos = options.positions?.[b];
      for (let t = 0; t < T; t++) positions[b * T + t] = pos ? pos[t]! : t;
    });
    const { hidden } = this.runLayers(tape, this.embed(tape, tokens), { batch: B, seqLen: T, positions }, options.adapter);
    return this.head(tape, hidden, options.adapter);
  }

  /**
   * Differentiable logprobs of each response token given its prompt and the response tokens
   * before it (temperature 1). Pairs with identical prompts share one prompt pass (see
   * scoring-plan.ts): a GRPO group of K computes its prompt once. `logitMask`: ids left out of
   * the softmax, as the sampler that produced the responses left them out (logit-mask.ts).
   */
  tokenLogprobs(tape: Tape, pairs: readonly ScoringPair[], options: ScoringOptions = {}): TokenLogprobs {
    const plan = planScoring(pairs);
    if (plan.groups === pairs.length) return this.scoreWholeSequences(tape, planWholeSequences(pairs), options);
    return this.scoreSharedPrompts(tape, plan, options);
  }

  /** A plan with a prompt pass (each distinct prompt once) and a response pass that sees it as a prefix. */
  private scoreSharedPrompts(tape: Tape, plan: ScoringPlan, options: ScoringOptions): TokenLogprobs {
    const P = plan.promptSeqLen;
    const prompt = this.runLayers(tape, this.embed(tape, plan.promptTokens), { batch: plan.groups, seqLen: P, positions: plan.promptPositions }, options.adapter);
    const rows = [prompt.hidden];
    if (plan.responseSeqLen > 0) {
      const layout: SequenceLayout = {
        batch: plan.groupOf.length,
        seqLen: plan.responseSeqLen,
        positions: plan.responsePositions,
        prefix: { kv: prompt.kv, seqLen: P, lengths: plan.promptLengths, index: plan.groupOf },
      };
      rows.push(this.runLayers(tape, this.embed(tape, plan.responseTokens), layout, options.adapter).hidden);
    }
    const hidden = gatherRows(tape, rows.length === 1 ? rows[0]! : concatRows(tape, rows), plan.headRows); // (N, hidden)
    const entropy = options.entropy ? new Float32Array(plan.targets.length) : undefined;
    // Fused head + log-softmax, by chunks of rows: the (N, vocab) logits never exist at once.
    const logprobs = this.headLogprobsOf(tape, hidden, plan.targets, options, entropy);
    return { logprobs, offsets: plan.offsets, entropy };
  }

  /**
   * Differentiable logprobs of `targets[t]` after `tokens[0..t]` for every position of every
   * row, the rows batched (fused head, as tokenLogprobs). Consecutive rows that begin with the
   * same tokens (a GRPO group's prompt) share one pass over them (planSharedTargetRows). Scores
   * what Tinker's forward_backward scores, whose targets need not be the next input tokens.
   */
  targetLogprobs(tape: Tape, rows: readonly TargetRow[], options: ScoringOptions = {}): TokenLogprobs {
    const shared = planSharedTargetRows(rows);
    return shared === undefined ? this.scoreWholeSequences(tape, planTargetRows(rows), options) : this.scoreSharedPrompts(tape, shared, options);
  }

  /** tokenLogprobs when no prompt is shared: one pass over each whole sequence (scoring-plan.ts). */
  private scoreWholeSequences(tape: Tape, plan: WholeSequencePlan, options: ScoringOptions): TokenLogprobs {
    const layout: SequenceLayout = { batch: plan.batch, seqLen: plan.seqLen, positions: plan.positions };
    const { hidden } = this.runLayers(tape, this.embed(tape, plan.tokens), layout, options.adapter);
    const entropy = options.entropy ? new Float32Array(plan.targets.length) : undefined;
    const rows = gatherRows(tape, hidden, plan.headRows);
    const logprobs = this.headLogprobsOf(tape, rows, plan.targets, options, entropy);
    return { logprobs, offsets: plan.offsets, entropy };
  }

  /** Token embeddings (N, hidden). */
  embed(tape: Tape, tokens: Int32Array): Tensor {
    return embedding(tape, this.param('model.embed_tokens.weight'), tokens);
  }

  /** All decoder layers; also returns each layer's keys/values (for prefixes and caches). */
  runLayers(tape: Tape, h: Tensor, layout: SequenceLayout, adapter?: string): { hidden: Tensor; kv: LayerKV[] } {
    const weights: LayerWeights = { config: this.config, arch: this.arch, parameters: this.parameters, adapter: adapter === undefined ? undefined : this.adapter(adapter) };
    const kv: LayerKV[] = [];
    for (let layer = 0; layer < this.config.num_hidden_layers; layer++) {
      const out = decoderLayer(tape, h, weights, layer, layout);
      h = out.h;
      kv.push(out.kv);
    }
    return { hidden: h, kv };
  }

  /** Final norm and output head: logits (N, vocab); tied heads reuse the embeddings; plus the adapter's head pair if it has one. */
  head(tape: Tape, hidden: Tensor, adapter?: string): Tensor {
    const lora = adapter === undefined ? undefined : this.adapter(adapter);
    const pair = lora?.headWeights();
    const normed = this.finalNorm(tape, hidden);
    return pair ? loraLinear(tape, normed, this.headWeight(), undefined, { ...pair, scale: lora!.scale }) : linear(tape, normed, this.headWeight());
  }

  /** Final norm, then the fused head + log-softmax of `targets`, through the adapter's head pair if it has one. */
  private headLogprobsOf(tape: Tape, hidden: Tensor, targets: ArrayLike<number>, options: ScoringOptions, entropy: Float32Array | undefined): Tensor {
    const lora = options.adapter === undefined ? undefined : this.adapter(options.adapter);
    const pair = lora?.headWeights();
    const normed = this.finalNorm(tape, hidden);
    // The pair's scale x A^T as its own small (N, r) op, so its gradient reaches A and the norm.
    const lowRank = pair ? { down: scale(tape, linear(tape, normed, pair.a), lora!.scale), b: pair.b } : undefined;
    return headLogprobs(tape, normed, this.headWeight(), targets, { entropy, logitMask: options.logitMask, ...(lowRank ? { lowRank } : {}) });
  }

  private finalNorm(tape: Tape, hidden: Tensor): Tensor {
    return rmsNorm(tape, hidden, this.param('model.norm.weight'), this.config.rms_norm_eps);
  }

  private headWeight(): Tensor {
    return this.param(this.config.tie_word_embeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  }

  /**
   * Adds a named LoRA adapter (B = 0, so the model's outputs do not change yet). Select it
   * per call with `{ adapter: name }`. For LoRA training call `freezeBase()` too, so that
   * only adapter weights get gradients (the base stays shared by every adapter).
   */
  addAdapter(name: string, config: LoraConfig, seed: number): LoraAdapter {
    if (this.adapters.has(name)) throw new TroupeError('config', `adapter '${name}' already exists; choose another name or removeAdapter first`);
    const adapter = LoraAdapter.create(this.kernels, this.config, { name, config, seed });
    this.adapters.set(name, adapter);
    return adapter;
  }

  removeAdapter(name: string): void {
    this.adapter(name).free(this.kernels);
    this.adapters.delete(name);
  }

  /**
   * Freezes (or unfreezes) the base weights: in LoRA mode only adapters train. Unfreezing a
   * bf16 base converts it to float32 (see setBaseDtype).
   */
  freezeBase(frozen = true): void {
    // Full fine-tuning trains float32 weights: a bf16 base is widened (exactly) first.
    if (!frozen && this.baseDtype === 'bf16') restoreParameters(this.kernels, this.parameters, 'f32', false);
    for (const t of this.parameters.values()) {
      t.requiresGrad = !frozen;
      if (frozen && t.grad) {
        this.kernels.free(t.grad);
        t.grad = null;
      } else if (!frozen && !t.grad) t.grad = this.kernels.alloc(t.size);
    }
  }

  /** The tensors an optimizer should update: an adapter's, or the trainable base weights. */
  trainableParameters(adapter?: string): Map<string, Tensor> {
    if (adapter !== undefined) return this.adapter(adapter).parameters;
    return new Map([...this.parameters].filter(([, t]) => t.requiresGrad));
  }

  parameterCount(): number {
    let n = 0;
    for (const t of this.parameters.values()) n += t.size;
    return n;
  }

  dispose(): void {
    for (const t of this.parameters.values()) t.free(this.kernels);
    for (const a of this.adapters.values()) a.free(this.kernels);
    this.adapters.clear();
  }

  private adapter(name: string): LoraAdapter {
    const a = this.adapters.get(name);
    if (!a) {
      const known = [...this.adapters.keys()];
      throw new TroupeError('config', `unknown LoRA adapter '${name}'; available: ${known.length ? known.join(', ') : '(none; call addAdapter first)'}`);
    }
    return a;
  }

  private param(name: string): Tensor {
    const t = this.parameters.get(name);
    if (!t) throw new TroupeError('invariant', `internal invariant broken: parameter '${name}' is missing`);
    return t;
  }
}
