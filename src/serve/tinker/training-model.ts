/**
 * One Tinker training model: a LoRA adapter (named by the model id) on a shared base, its
 * accumulated gradients and its Adam state.
 *
 *   const m = TrainingModel.create(base, 'sess-1:train:0', { rank: 8 }, 1);
 *   m.forwardBackward(request);      // adds d(loss)/d(adapter) into the adapter's .grad
 *   m.optimStep(DEFAULT_ADAM);       // Adam step, then gradients are zeroed
 *
 * Gradients of successive forward_backward calls add up until optim_step (Tinker's chunks
 * of one batch); `forward_only` computes outputs without touching them.
 */
import { Tape } from '../../engine/autograd/tape.js';
import type { LinearModule } from '../../engine/model/llama-params.js';
import type { LoraAdapter, LoraConfig } from '../../engine/model/lora.js';
import { AdamW, type AdamWState } from '../../engine/optim/adamw.js';
import { clipGradNorm } from '../../engine/optim/clip-grad-norm.js';
import { LOSS_FUNCTIONS } from '../../tinker/loss-functions.js';
import { autoMicroBatchTokens } from '../../train/micro-batch-tokens.js';
import { TINKER_ATTENTION_MODULES, TINKER_MLP_MODULES, type AdamParams, type ForwardBackwardOutput, type ForwardBackwardRequest, type LoraConfigWire, type LossFnName } from '../../tinker/types.js';
import type { LoadedBase } from './base-models.js';
import type { CheckedDatum } from './check-datums.js';
import { badField, TinkerApiError } from './tinker-api-error.js';

/**
 * The default LoRA alpha for every rank: the API sends none, so the server chooses it
 * (`troupe serve --tinker --lora-alpha N`; scale alpha / rank) and reports it in get_info as
 * `lora_alpha`, so a client can check it matches its own (docs/tinker.md). 32 is Troupe's
 * `model.lora.alpha` default, so a default `policy.kind: tinker` config matches a default server.
 */
export const LORA_ALPHA = 32;

/** The most padded tokens one forward_backward piece runs (see microBatchTokens). */
const PIECE_TOKENS = 4096;


export function loraConfigFromWire(wire: LoraConfigWire, alpha: number): LoraConfig {
  if (!Number.isInteger(wire.rank) || wire.rank <= 0) throw badField('lora_config.rank', `must be a positive integer, got ${JSON.stringify(wire.rank)}`);
  const targetModules: LinearModule[] = [...(wire.train_attn === false ? [] : TINKER_ATTENTION_MODULES), ...(wire.train_mlp === false ? [] : TINKER_MLP_MODULES)];
  if (targetModules.length === 0 && !wire.train_unembed) throw badField('lora_config', 'train_attn, train_mlp and train_unembed are all false, so the adapter would train nothing; enable at least one');
  return { r: wire.rank, alpha, targetModules, head: wire.train_unembed === true };
}

/** Copies of an adapter's tensors (and optionally its Adam state): a saved checkpoint. */
export interface AdapterSnapshot {
  readonly baseModel: string;
  readonly lora: LoraConfigWire;
  /** The adapter's alpha (the server's --lora-alpha when it was trained). */
  readonly alpha: number;
  readonly tensors: ReadonlyMap<string, Float32Array>;
  readonly optimizer?: AdamWState;
}

/** A forward_backward request as checked at the edge. */
export interface ForwardBackwardJob {
  readonly lossFn: LossFnName;
  readonly datums: readonly CheckedDatum[];
  readonly config: ForwardBackwardRequest['loss_fn_config'];
  readonly forwardOnly: boolean;
}

export class TrainingModel {
  readonly id: string;
  readonly base: LoadedBase;
  readonly lora: LoraConfigWire;
  readonly alpha: number;
  private optimizer?: { key: string; adam: AdamW };

  private constructor(id: string, base: LoadedBase, lora: LoraConfigWire, alpha: number) {
    this.id = id;
    this.base = base;
    this.lora = lora;
    this.alpha = alpha;
  }

  /** A fresh adapter; its A comes from `lora.seed` when the client sent one (the embedded engine's rule, lora.ts), else `seed`. */
  static create(base: LoadedBase, id: string, lora: LoraConfigWire, init: { seed: number; alpha: number }): TrainingModel {
    TrainingModel.adapterFor(base, id, lora, { alpha: init.alpha, seed: lora.seed ?? init.seed });
    return new TrainingModel(id, base, lora, init.alpha);
  }

  /** Adds adapter `name` of this LoRA shape to the base (sampler snapshots use it too). */
  static adapterFor(base: LoadedBase, name: string, lora: LoraConfigWire, init: { alpha: number; seed?: number }): LoraAdapter {
    return base.model.addAdapter(name, loraConfigFromWire(lora, init.alpha), init.seed ?? 0);
  }

  private get parameters() {
    return this.base.model.trainableParameters(this.id);
  }

  /**
   * Runs a batch checkDatums accepted (at submit time); gradients add into the adapter's .grad
   * unless forward_only. Datums are scored in micro-batches, one model pass each (padded to the
   * longest datum, at most `microBatchTokens` padded tokens), not one pass per datum: the
   * gradient is the same sum, and a batch of short sequences costs a few large products
   * instead of hundreds of small ones. An adapter with LoRA on the output head is scored datum
   * by datum (the fused head does not apply its pair).
   */
  forwardBackward(request: ForwardBackwardJob): ForwardBackwardOutput {
    const steps = this.forwardBackwardSteps(request);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  }

  /** forwardBackward that pauses after each micro-batch, so a server can answer other requests in between. */
  *forwardBackwardSteps(request: ForwardBackwardJob): Generator<void, ForwardBackwardOutput, void> {
    const outputs: ForwardBackwardOutput['loss_fn_outputs'][number][] = [];
    let total = 0;
    const micros = paddedMicroBatches(request.datums, this.microBatchTokens());
    for (const micro of micros) {
      const tape = new Tape(this.base.model.kernels, { grad: !request.forwardOnly });
      try {
        const scored = this.base.model.targetLogprobs(tape, micro, { adapter: this.id });
        const grad = new Float32Array(scored.logprobs.size);
        micro.forEach((d, b) => {
          const [from, to] = [scored.offsets[b]!, scored.offsets[b + 1]!];
          const logprobs_T = scored.logprobs.data.slice(from, to);
          const result = LOSS_FUNCTIONS[request.lossFn](logprobs_T, d.inputs, request.config);
          grad.set(result.dLoss_dLogprobs_T, from);
          total += result.loss;
          outputs.push({
            logprobs: { dtype: 'float32', shape: [d.tokens.length], data: Float32Array.from(logprobs_T) },
            elementwise_loss: { dtype: 'float32', shape: [d.tokens.length], data: result.elementwise_T },
          });
        });
        if (!request.forwardOnly) tape.backward(scored.logprobs, grad);
      } finally {
        tape.dispose();
      }
      yield;
    }
    return { loss_fn_output_type: 'ArrayRecord', loss_fn_outputs: outputs, metrics: { 'loss:sum': total } };
  }

  /**
   * Padded tokens a micro-batch may hold: the learner's activation budget for this model, and
   * at most PIECE_TOKENS, because a micro-batch is also what a waiting request (a rollout's
   * next turn, a health check) may have to wait for.
   */
  private microBatchTokens(): number {
    return Math.min(PIECE_TOKENS, autoMicroBatchTokens([this.base.model.config]));
  }

  /**
   * One Adam step on the accumulated gradients, then zeroes them. `params` were checked at the
   * edge (check-training-requests.ts). Should the gradients or the updated weights hold a NaN or
   * an infinity anyway (an overflowing loss), the step is undone and refused with an error that
   * says so: the adapter keeps its weights and Adam state from before.
   */
  optimStep(params: AdamParams): { metrics: Record<string, number> } {
    const adam = this.adam(params);
    const norm = clipGradNorm(this.base.model.kernels, adam.parameters.values(), params.grad_clip_norm > 0 ? params.grad_clip_norm : Infinity);
    if (!Number.isFinite(norm)) {
      adam.zeroGrad();
      throw new TinkerApiError(400, `optim_step not applied: the accumulated gradient norm is ${norm} (a loss input overflowed); the adapter keeps its weights, and the gradients were cleared`);
    }
    const before = this.snapshot(true);
    adam.step(params.learning_rate);
    adam.zeroGrad();
    const broken = [...this.parameters].find(([, t]) => !t.data.every(Number.isFinite));
    if (broken !== undefined) {
      this.restore(before, true);
      throw new TinkerApiError(400, `optim_step not applied: it would have put a non-finite value into ${broken[0]}; the adapter keeps its weights and Adam state from before the step (lower learning_rate)`);
    }
    return { metrics: { 'grad_norm:mean': norm } };
  }

  snapshot(withOptimizer: boolean): AdapterSnapshot {
    const tensors = new Map([...this.parameters].map(([name, t]) => [name, Float32Array.from(t.data)]));
    const optimizer = withOptimizer ? this.optimizer?.adam.exportState() : undefined;
    return { baseModel: this.base.name, lora: this.lora, alpha: this.alpha, tensors, ...(optimizer ? { optimizer } : {}) };
  }

  /** Loads saved adapter weights (and Adam state when asked and saved); gradients reset. */
  restore(snapshot: AdapterSnapshot, withOptimizer: boolean): void {
    if (snapshot.baseModel !== this.base.name || snapshot.lora.rank !== this.lora.rank) {
      throw badField('path', `the checkpoint is a rank-${snapshot.lora.rank} adapter of ${snapshot.baseModel}, but this model is a rank-${this.lora.rank} adapter of ${this.base.name}; create the training client with the checkpoint's base model and rank`);
    }
    if (snapshot.alpha !== this.alpha) {
      throw badField('path', `the checkpoint was trained with LoRA alpha ${snapshot.alpha}, but this server's adapters use alpha ${this.alpha}; restart troupe serve --tinker with --lora-alpha ${snapshot.alpha}`);
    }
    for (const [name, t] of this.parameters) {
      const saved = snapshot.tensors.get(name);
      if (!saved || saved.length !== t.size) throw badField('path', `the checkpoint has no tensor ${name} of ${t.size} values (its LoRA targets differ from this model's)`);
      t.data.set(saved);
      t.grad?.fill(0);
    }
    if (withOptimizer && snapshot.optimizer) this.adam(undefined).importState(snapshot.optimizer);
    else this.optimizer = undefined;
  }

  dispose(): void {
    this.optimizer?.adam.dispose();
    this.base.model.removeAdapter(this.id);
  }

  /** The Adam of these hyperparameters; a change of them keeps the moments (Tinker sends them every step). */
  private adam(params: AdamParams | undefined): AdamW {
    const p = params ?? { beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0 };
    const key = `${p.beta1}/${p.beta2}/${p.eps}/${p.weight_decay}`;
    if (this.optimizer && (params === undefined || this.optimizer.key === key)) return this.optimizer.adam;
    const adam = new AdamW(this.base.model.kernels, this.parameters, { beta1: p.beta1, beta2: p.beta2, eps: p.eps, weightDecay: p.weight_decay, decay: () => true });
    if (this.optimizer) {
      adam.importState(this.optimizer.adam.exportState());
      this.optimizer.adam.dispose();
    }
    this.optimizer = { key, adam };
    return adam;
  }
}

/**
 * Consecutive datums grouped so that each group, right-padded to its longest datum, holds at
 * most `maxTokens` tokens (a datum longer than that gets a group of its own). Order is kept:
 * outputs come back in the request's order.
 */
export function paddedMicroBatches<T extends { readonly tokens: readonly unknown[] }>(datums: readonly T[], maxTokens: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let longest = 0;
  for (const d of datums) {
    const width = Math.max(longest, d.tokens.length);
    if (current.length > 0 && width * (current.length + 1) > maxTokens) {
      batches.push(current);
      current = [];
      longest = 0;
    }
    current.push(d);
    longest = Math.max(longest, d.tokens.length);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
