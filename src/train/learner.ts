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
 * update stops with an error instead of training on a silently wrong ratio. On a bf16 base
 * the two paths round differently, so by default there the learner's recomputation is PPO's
 * "old" policy, the sampler's logprobs give each token a truncated importance weight (which
 * also corrects stale samples in asynchronous training: decoupled PPO), and only a mean gap
 * far above the rounding one stops the run (logprob-gap.ts).
 */
import { BufferPool } from '../engine/autograd/buffer-pool.js';
import { Tape } from '../engine/autograd/tape.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import type { ScoringPair } from '../engine/model/scoring-plan.js';
import { AdamW, type AdamWState } from '../engine/optim/adamw.js';
import { clipGradNorm } from '../engine/optim/clip-grad-norm.js';
import { policyLoss, type PolicyLossOptions } from '../algo/policy-loss.js';
import { TroupeError } from '../util/errors.js';
import { GapTally, logprobGap, resolveOldLogprobs, type LogprobGap, type OldLogprobsSetting, type OldLogprobsSource } from './logprob-gap.js';

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
  /** Largest |recorded - recomputed| logprob tolerated before the stale-weight error (old logprobs from the sampler). */
  readonly logprobTolerance: number;
  /** Whose logprobs are PPO's "old" policy (logprob-gap.ts); default auto. */
  readonly oldLogprobs?: OldLogprobsSetting;
  /** Cap of the truncated importance weight when the learner's recomputation is the old policy; default 2. */
  readonly tisCap?: number;
  /** Largest mean |recorded - recomputed| logprob of a micro-batch's fresh tokens tolerated then; default 0.05. */
  readonly logprobGapLimit?: number;
}

/**
 * Most bytes of recycled arrays a learner keeps between steps (see Learner.pool). A model with
 * weights under SMALL_MODEL_BYTES (the learning runs' character models) keeps its whole pool
 * (BufferPool's cap, 1 GiB): its rollout needs a few MB, so the held arrays add nothing to the
 * run's peak, and giving back the large ones to take them again next step cost ~15% of the
 * update (measured at the learning runs' shape). A bigger model keeps 256 MiB, so its
 * activations go back to the kernels while its rollout, which needs real memory, runs.
 */
const SMALL_MODEL_BYTES = 64 * 2 ** 20;
const KEPT_POOL_BYTES = { small: 2 ** 30, large: 256 * 2 ** 20 };

/** Called after each micro-batch of an update (progress on big models). */
export type MicroBatchProgress = (done: number, total: number) => void;

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
  /** Mean |recorded - recomputed| logprob per token. */
  readonly mean_logprob_gap: number;
  /** Whose logprobs were PPO's "old" policy. */
  readonly old_logprobs: OldLogprobsSource;
  /** The truncated importance weights (mean, range, fraction at the cap); absent when old_logprobs is sampler. */
  readonly is_weight_mean?: number;
  readonly is_weight_min?: number;
  readonly is_weight_max?: number;
  readonly is_truncated_fraction?: number;
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
  private readonly oldLogprobs: OldLogprobsSource;
  /**
   * One pool for every micro-batch of every step: the later ones reuse the arrays of the first
   * instead of allocating them again (~1 GB a 256-token row of a 0.6B model, which on the
   * native backend also sets V8 collecting). It outlives the step because the tiny models of
   * the learning runs allocate thousands of small arrays a step, each a native call, an
   * external ArrayBuffer and its share of garbage collections; between steps it keeps at most
   * `keptPoolBytes` (KEPT_POOL_BYTES says how much).
   */
  private readonly pool: BufferPool;
  private readonly keptPoolBytes: number;

  constructor(init: { policyId: string; model: LlamaModel; adapter?: string; options: LearnerOptions; reference?: ReferencePolicy; logitMask?: ArrayLike<number> }) {
    this.policyId = init.policyId;
    this.model = init.model;
    this.adapter = init.adapter;
    this.options = init.options;
    this.reference = init.reference;
    this.logitMask = init.logitMask ?? [];
    this.oldLogprobs = resolveOldLogprobs(init.options.oldLogprobs ?? 'auto', init.model);
    if (init.options.loss.klCoef !== 0 && !init.reference) {
      throw new TroupeError('config', `policy '${init.policyId}': a KL coefficient is set but there is no reference policy to compare with`);
    }
    const parameters = init.model.trainableParameters(init.adapter);
    if (parameters.size === 0) {
      throw new TroupeError('config', `policy '${init.policyId}' has no trainable parameters (a frozen base without an adapter?)`);
    }
    this.optimizer = new AdamW(init.model.kernels, parameters, { weightDecay: init.options.weightDecay });
    this.pool = new BufferPool(init.model.kernels);
    let weightBytes = 0;
    for (const t of init.model.parameters.values()) weightBytes += t.size * (t.dtype === 'bf16' ? 2 : 4);
    this.keptPoolBytes = weightBytes < SMALL_MODEL_BYTES ? KEPT_POOL_BYTES.small : KEPT_POOL_BYTES.large;
  }

  /** One policy-gradient step at learning rate `lr` on this policy's sequences. */
  update(sequences: readonly TrainingSequence[], lr: number, progress?: MicroBatchProgress): UpdateMetrics {
    return this.step(sequences, lr, this.options.loss, true, progress);
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
    this.pool.clear();
  }

  private step(sequences: readonly TrainingSequence[], lr: number, loss: PolicyLossOptions, checkStale: boolean, progress?: MicroBatchProgress): UpdateMetrics {
    for (const [i, s] of sequences.entries()) {
      if (s.oldLogprobs.length !== s.responseIds.length) {
        throw new TroupeError('invariant', `internal invariant broken: sequence ${i} of policy '${this.policyId}' has ${s.responseIds.length} tokens but ${s.oldLogprobs.length} recorded logprobs`);
      }
    }
    const usable = sequences.filter((s) => s.responseIds.length > 0);
    const totalTokens = usable.reduce((n, s) => n + s.responseIds.length, 0);
    const totals = { loss: 0, clipped: 0, kl: 0, entropy: 0 };
    const gaps = new GapTally();
    const decoupled = checkStale && this.oldLogprobs === 'learner';
    const pool = this.pool;
    try {
      const micros = microBatches(usable, this.options.microBatchTokens);
      for (const [m, micro] of micros.entries()) {
        const microTokens = micro.reduce((n, s) => n + s.responseIds.length, 0);
        // Rescale the micro-batch's own aggregation to the whole batch's (see policy-loss.ts).
        const scale = loss.aggregation === 'token-mean' ? microTokens / totalTokens : micro.length / usable.length;
        const tape = new Tape(this.model.kernels, { pool });
        try {
          const pairs = micro.map((s) => ({ promptIds: s.promptIds, responseIds: s.responseIds }));
          const scored = this.model.tokenLogprobs(tape, pairs, { adapter: this.adapter, entropy: true, logitMask: this.logitMask });
          const flat = flatten(micro);
          const logprobs_N = scored.logprobs.data;
          if (checkStale) {
            this.checkFresh(logprobGap(logprobs_N, flat.oldLogprobs_N, flat.fresh_N));
            gaps.addGap(logprobGap(logprobs_N, flat.oldLogprobs_N));
          }
          const refLogprobs_N = loss.klCoef !== 0 ? this.referenceLogprobs(pairs, pool) : undefined;
          const tokens = { advantages_N: flat.advantages_N, sequence_N: flat.sequence_N, logprobs_N, refLogprobs_N };
          // Decoupled: the recomputation (taken before this update's step) is the old policy,
          // the sampler's logprobs the behaviour policy that weights each token.
          const result = decoupled
            ? policyLoss({ ...tokens, oldLogprobs_N: Float64Array.from(logprobs_N), behaviourLogprobs_N: flat.oldLogprobs_N }, { ...loss, tisCap: this.options.tisCap ?? 2 })
            : policyLoss({ ...tokens, oldLogprobs_N: flat.oldLogprobs_N }, loss);
          if (result.importance !== null) gaps.addWeights(result.importance);
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
        progress?.(m + 1, micros.length);
      }
    } finally {
      pool.trim(this.keptPoolBytes);
    }
    const gradNorm = clipGradNorm(this.model.kernels, this.optimizer.parameters.values(), this.options.gradClip);
    if (!Number.isFinite(gradNorm)) {
      this.optimizer.zeroGrad();
      throw new TroupeError('engine', `policy '${this.policyId}': the gradient norm is ${gradNorm}; the step was skipped. Lower the learning rate or check the rewards for NaN`);
    }
    this.optimizer.step(lr);
    this.optimizer.zeroGrad();
    const perToken = (x: number) => (totalTokens === 0 ? 0 : x / totalTokens);
    const gap = gaps.summary();
    return {
      loss: totals.loss,
      clip_fraction: perToken(totals.clipped),
      kl: loss.klCoef === 0 ? null : perToken(totals.kl),
      entropy: perToken(totals.entropy),
      grad_norm: gradNorm,
      tokens: totalTokens,
      sequences: usable.length,
      max_logprob_gap: gap.max,
      mean_logprob_gap: gap.mean,
      old_logprobs: decoupled ? 'learner' : 'sampler',
      ...gap.weights,
    };
  }

  /** Stops the update when the fresh tokens' gap says the sampler used other weights. */
  private checkFresh(fresh: LogprobGap): void {
    if (this.oldLogprobs === 'sampler') {
      if (!(fresh.max <= this.options.logprobTolerance)) {
        throw new TroupeError(
          'invariant',
          `policy '${this.policyId}': logprobs recorded at sampling differ from the learner's by up to ${fresh.max.toExponential(2)} ` +
            `(tolerance ${this.options.logprobTolerance}, train.logprob_tolerance); the sampler did not use this learner's current weights` +
            (this.model.baseDtype === 'bf16' ? `, or the bf16 rounding gap is larger: set train.old_logprobs: learner (or auto)` : ''),
        );
      }
      return;
    }
    const limit = this.options.logprobGapLimit ?? 0.05;
    const mean = fresh.count === 0 ? 0 : fresh.sum / fresh.count;
    if (!(mean <= limit)) {
      throw new TroupeError(
        'invariant',
        `policy '${this.policyId}': logprobs recorded at sampling differ from the learner's by ${mean.toExponential(2)} per token on average ` +
          `(limit ${limit}, train.logprob_gap_limit), far above bf16 rounding; the sampler did not use this learner's current weights`,
      );
    }
  }

  private referenceLogprobs(pairs: readonly ScoringPair[], pool: BufferPool): Float32Array {
    const reference = this.reference!;
    // The update's pool: the reference pass's arrays and the policy's recycle each other.
    const tape = new Tape(reference.model.kernels, { grad: false, pool: reference.model.kernels === this.model.kernels ? pool : undefined });
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
 * Cuts sequences into micro-batches of at most `maxTokens` tokens, keeping each group whole
 * when it fits, so a group's shared prompt is computed once. A token counts what the update
 * keeps of it: the prompt once per group and micro-batch (the prompt pass runs it once,
 * scoring-plan.ts), each response token, and for each further sequence of the group an eighth
 * of the prompt (its attention keeps its own copy of the prompt's keys and values: 2 of the
 * ~16-20 widths a token keeps per layer, micro-batch-tokens.ts). Counting the prompt once per
 * sequence instead cut the default run's update (K = 8, prompts ~150 tokens, answers 2-3)
 * into ~5x more micro-batches than its memory needs.
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
  let seen = new Set<string>();
  const cost = (s: TrainingSequence, first: boolean) => (first ? s.promptIds.length : Math.ceil(s.promptIds.length / 8)) + s.responseIds.length;
  for (const group of groups.values()) {
    for (const s of group) {
      if (current.length > 0 && tokens + cost(s, !seen.has(s.group)) > maxTokens) {
        batches.push(current);
        current = [];
        tokens = 0;
        seen = new Set();
      }
      current.push(s);
      tokens += cost(s, !seen.has(s.group));
      seen.add(s.group);
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
