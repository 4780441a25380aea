/**
 * A learner owns one trainable policy's weights (a whole model, or one LoRA adapter on a
 * shared frozen base) and its optimizer, and updates them on that policy's samples only.
 *
 * One `update` = one optimizer step over a batch (on-policy, as AT-GRPO does): the batch is
 * cut into micro-batches that keep each GRPO group together (so its prompt is computed once),
 * each micro-batch's per-token logprobs are recomputed with gradients, the policy loss of
 * src/algo/policy-loss.ts turns them into d(loss)/d(logprob), and the engine backpropagates
 * that into the weights. Gradients add up over micro-batches, are clipped, and AdamW steps.
 *
 * Stale-weight check: before the step, the recomputed logprobs of every token must equal the
 * ones recorded at sampling time (same weights, so the same numbers up to float rounding).
 * A larger gap means the sampler did not sample from this learner's current weights, and the
 * update stops with an error instead of training on a silently wrong ratio.
 */
import { BufferPool } from '../engine/autograd/buffer-pool.js';
import { Tape } from '../engine/autograd/tape.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import type { ScoringPair } from '../engine/model/scoring-plan.js';
import { AdamW, type AdamWState } from '../engine/optim/adamw.js';
import { clipGradNorm } from '../engine/optim/clip-grad-norm.js';
import { policyLoss, type PolicyLossOptions } from '../algo/policy-loss.js';
import { TroupeError } from '../util/errors.js';

/** What a learner trains on: one sampled response with its advantage. */
export interface TrainingSequence {
  readonly promptIds: readonly number[];
  readonly responseIds: readonly number[];
  /** Logprobs recorded when the response was sampled (one per response token). */
  readonly oldLogprobs: readonly number[];
  readonly advantage: number;
  /** Sequences with equal group keys share a prompt and stay in one micro-batch. */
  readonly group: string;
  /**
   * Asynchronous training: updates since the sample was drawn (absent = 0). Only fresh (0)
   * sequences must match the learner's logprobs; a stale one's gap is reported, not an error.
   */
  readonly staleness?: number;
}

export interface LearnerOptions {
  readonly loss: PolicyLossOptions;
  readonly gradClip: number;
  readonly weightDecay: number;
  /** Most (prompt + response) tokens per micro-batch: bounds memory, not the result. */
  readonly microBatchTokens: number;
  /** Largest |recorded - recomputed| logprob tolerated before the stale-weight error. */
  readonly logprobTolerance: number;
}

/** The frozen policy a KL penalty pulls towards: a model, optionally through an adapter. */
export interface ReferencePolicy {
  readonly model: LlamaModel;
  readonly adapter?: string;
}

export interface UpdateMetrics {
  readonly loss: number;
  readonly clip_fraction: number;
  /** Mean KL estimate per token to the reference; null without a KL penalty. */
  readonly kl: number | null;
  /** Mean per-token entropy of the policy on the batch (nats). */
  readonly entropy: number;
  /** Gradient norm before clipping. */
  readonly grad_norm: number;
  readonly tokens: number;
  readonly sequences: number;
  /** Largest |recorded - recomputed| logprob seen (the stale-weight check's margin). */
  readonly max_logprob_gap: number;
}

export class Learner {
  readonly policyId: string;
  readonly model: LlamaModel;
  readonly adapter: string | undefined;
  readonly optimizer: AdamW;
  private readonly options: LearnerOptions;
  private readonly reference: ReferencePolicy | undefined;
  /** The ids its policy's sampler masks (logit-mask.ts): the learner's softmax leaves them out too. */
  private readonly logitMask: ArrayLike<number>;

  constructor(init: { policyId: string; model: LlamaModel; adapter?: string; options: LearnerOptions; reference?: ReferencePolicy; logitMask?: ArrayLike<number> }) {
    this.policyId = init.policyId;
    this.model = init.model;
    this.adapter = init.adapter;
    this.options = init.options;
    this.reference = init.reference;
    this.logitMask = init.logitMask ?? [];
    if (init.options.loss.klCoef !== 0 && !init.reference) {
      throw new TroupeError('config', `policy '${init.policyId}': a KL coefficient is set but there is no reference policy to compare with`);
    }
    const parameters = init.model.trainableParameters(init.adapter);
    if (parameters.size === 0) {
      throw new TroupeError('config', `policy '${init.policyId}' has no trainable parameters (a frozen base without an adapter?)`);
    }
    this.optimizer = new AdamW(init.model.kernels, parameters, { weightDecay: init.options.weightDecay });
  }

  /** One policy-gradient step at learning rate `lr` on this policy's sequences. */
  update(sequences: readonly TrainingSequence[], lr: number): UpdateMetrics {
    return this.step(sequences, lr, this.options.loss, true);
  }

  /**
   * One supervised step (warm start): maximise the logprob of each response, i.e. the
   * REINFORCE loss with every advantage 1 and no stale-weight check (demonstrations were not
   * sampled from this model).
   */
  supervisedStep(pairs: readonly ScoringPair[], lr: number): UpdateMetrics {
    const sequences = pairs.map((p, i) => ({ ...p, oldLogprobs: new Array<number>(p.responseIds.length).fill(0), advantage: 1, group: `sft${i}` }));
    return this.step(sequences, lr, { ...this.options.loss, kind: 'reinforce', klCoef: 0 }, false);
  }

  exportOptimizerState(): AdamWState {
    return this.optimizer.exportState();
  }

  importOptimizerState(state: AdamWState): void {
    this.optimizer.importState(state);
  }

  dispose(): void {
    this.optimizer.dispose();
  }

  private step(sequences: readonly TrainingSequence[], lr: number, loss: PolicyLossOptions, checkStale: boolean): UpdateMetrics {
    for (const [i, s] of sequences.entries()) {
      if (s.oldLogprobs.length !== s.responseIds.length) {
        throw new TroupeError('invariant', `internal invariant broken: sequence ${i} of policy '${this.policyId}' has ${s.responseIds.length} tokens but ${s.oldLogprobs.length} recorded logprobs`);
      }
    }
    const usable = sequences.filter((s) => s.responseIds.length > 0);
    const totalTokens = usable.reduce((n, s) => n + s.responseIds.length, 0);
    const totals = { loss: 0, clipped: 0, kl: 0, entropy: 0, gap: 0 };
    // One pool for the step's micro-batches: the later ones reuse the arrays of the first
    // instead of allocating them again (~1 GB a 256-token row of a 0.6B model, which on the
    // native backend also sets V8 collecting); all of it goes back when the step ends.
    const pool = new BufferPool(this.model.kernels);
    try {
      for (const micro of microBatches(usable, this.options.microBatchTokens)) {
        const microTokens = micro.reduce((n, s) => n + s.responseIds.length, 0);
        // Rescale the micro-batch's own aggregation to the whole batch's (see policy-loss.ts).
        const scale = loss.aggregation === 'token-mean' ? microTokens / totalTokens : micro.length / usable.length;
        const tape = new Tape(this.model.kernels, { pool });
        try {
          const pairs = micro.map((s) => ({ promptIds: s.promptIds, responseIds: s.responseIds }));
          const scored = this.model.tokenLogprobs(tape, pairs, { adapter: this.adapter, entropy: true, logitMask: this.logitMask });
          const flat = flatten(micro);
          const logprobs_N = scored.logprobs.data;
          if (checkStale) totals.gap = Math.max(totals.gap, this.checkFresh(logprobs_N, flat.oldLogprobs_N, flat.fresh_N));
          const refLogprobs_N = loss.klCoef !== 0 ? this.referenceLogprobs(pairs) : undefined;
          const result = policyLoss({ oldLogprobs_N: flat.oldLogprobs_N, advantages_N: flat.advantages_N, sequence_N: flat.sequence_N, logprobs_N, refLogprobs_N }, loss);
          const grad = new Float32Array(result.dLogprobs_N.length);
          for (let i = 0; i < grad.length; i++) grad[i] = result.dLogprobs_N[i]! * scale;
          tape.backward(scored.logprobs, grad);
          totals.loss += result.loss * scale;
          totals.clipped += result.clipFraction * microTokens;
          totals.kl += result.kl * microTokens;
          for (const e of scored.entropy ?? []) totals.entropy += e;
        } finally {
          tape.dispose();
        }
      }
    } finally {
      pool.clear();
    }
    const gradNorm = clipGradNorm(this.model.kernels, this.optimizer.parameters.values(), this.options.gradClip);
    if (!Number.isFinite(gradNorm)) {
      this.optimizer.zeroGrad();
      throw new TroupeError('engine', `policy '${this.policyId}': the gradient norm is ${gradNorm}; the step was skipped. Lower the learning rate or check the rewards for NaN`);
    }
    this.optimizer.step(lr);
    this.optimizer.zeroGrad();
    const perToken = (x: number) => (totalTokens === 0 ? 0 : x / totalTokens);
    return {
      loss: totals.loss,
      clip_fraction: perToken(totals.clipped),
      kl: loss.klCoef === 0 ? null : perToken(totals.kl),
      entropy: perToken(totals.entropy),
      grad_norm: gradNorm,
      tokens: totalTokens,
      sequences: usable.length,
      max_logprob_gap: totals.gap,
    };
  }

  /** The largest gap over all tokens; an error when a fresh token's gap exceeds the tolerance. */
  private checkFresh(logprobs_N: Float32Array, oldLogprobs_N: Float64Array, fresh_N: Uint8Array): number {
    let gap = 0;
    let freshGap = 0;
    for (let i = 0; i < logprobs_N.length; i++) {
      const d = Math.abs(logprobs_N[i]! - oldLogprobs_N[i]!);
      gap = Math.max(gap, d);
      if (fresh_N[i] === 1) freshGap = Math.max(freshGap, d);
    }
    if (!(freshGap <= this.options.logprobTolerance)) {
      throw new TroupeError(
        'invariant',
        `policy '${this.policyId}': logprobs recorded at sampling differ from the learner's by up to ${freshGap.toExponential(2)} ` +
          `(tolerance ${this.options.logprobTolerance}); the sampler did not use this learner's current weights`,
      );
    }
    return gap;
  }

  private referenceLogprobs(pairs: readonly ScoringPair[]): Float32Array {
    const reference = this.reference!;
    const tape = new Tape(reference.model.kernels, { grad: false });
    try {
      return Float32Array.from(reference.model.tokenLogprobs(tape, pairs, { adapter: reference.adapter, logitMask: this.logitMask }).logprobs.data);
    } finally {
      tape.dispose();
    }
  }
}

/** Token-level arrays of a micro-batch, in the order tokenLogprobs returns them. */
function flatten(micro: readonly TrainingSequence[]) {
  const n = micro.reduce((sum, s) => sum + s.responseIds.length, 0);
  const oldLogprobs_N = new Float64Array(n);
  const advantages_N = new Float64Array(n);
  const sequence_N = new Int32Array(n);
  const fresh_N = new Uint8Array(n);
  let i = 0;
  micro.forEach((s, b) => {
    for (let t = 0; t < s.responseIds.length; t++, i++) {
      fresh_N[i] = (s.staleness ?? 0) === 0 ? 1 : 0;
      oldLogprobs_N[i] = s.oldLogprobs[t]!;
      advantages_N[i] = s.advantage;
      sequence_N[i] = b;
    }
  });
  return { oldLogprobs_N, advantages_N, sequence_N, fresh_N };
}

/**
 * Cuts sequences into micro-batches of at most `maxTokens` (prompt + response) tokens,
 * keeping each group whole when it fits, so a group's shared prompt is computed once.
 */
export function microBatches(sequences: readonly TrainingSequence[], maxTokens: number): TrainingSequence[][] {
  const groups = new Map<string, TrainingSequence[]>();
  for (const s of sequences) {
    const list = groups.get(s.group);
    if (list) list.push(s);
    else groups.set(s.group, [s]);
  }
  const batches: TrainingSequence[][] = [];
  let current: TrainingSequence[] = [];
  let tokens = 0;
  const cost = (s: TrainingSequence) => s.promptIds.length + s.responseIds.length;
  for (const group of groups.values()) {
    for (const s of group) {
      if (current.length > 0 && tokens + cost(s) > maxTokens) {
        batches.push(current);
        current = [];
        tokens = 0;
      }
      current.push(s);
      tokens += cost(s);
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
