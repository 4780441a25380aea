/**
 * `troupe bench grpo-step <model>`: the time of one single-agent GRPO step with LoRA on a model
 * folder, phase by phase, with the same work bench/trl-grpo-step.py gives TRL's GRPOTrainer
 * (bench/grpo-step-vs-trl.sh prints both):
 *
 *   npx troupe bench grpo-step models/qwen3-shape --prompts 4 --k 8 --tokens 64 --lora-rank 16 --threads 2
 *
 *   rollout   P fixed text prompts (grpoStepPrompts), K completions each of exactly N new tokens
 *             (no stop; temperature 1), batched decode with one shared prefill per prompt
 *   reward    the fraction of even token ids (a stand-in: speed does not depend on it), GRPO
 *             advantages (r - mean) / std per prompt
 *   update    the learner's PPO-clip step: recompute log-probs with gradients in micro-batches
 *             (train.micro_batch_tokens auto), backward into the adapter, AdamW; the bf16 base
 *             stays bf16 and frozen
 * A progress line is printed during every phase; the result has the sampler/learner log-prob gap
 * the update measured and the peak RSS of the process. --profile adds each phase's CPU time by
 * part (projections, attention, LM head + log-softmax, LoRA, element-wise, memory, JavaScript:
 * sampling and planning) with GFLOP/s against the measured float32 matmul peak.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { estimators } from '../algo/advantage-estimators.js';
import { resolveModel } from '../engine/hub/resolve-model.js';
import { loadModel } from '../engine/io/model-checkpoint.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { createKernels, resolveBackend } from '../engine/kernels/get-kernels.js';
import { profileKernels } from '../engine/kernels/profile-kernels.js';
import { measurePeak, modelMatmuls, profileParts, type PartRow } from '../engine/kernels/profile-parts.js';
import { LINEAR_MODULES } from '../engine/model/llama-params.js';
import { Sampler } from '../engine/sampling/generate.js';
import { idsWithoutToken } from '../engine/tokenizer/ids-without-token.js';
import { Learner, type TrainingSequence } from '../train/learner.js';
import { resolveMicroBatchTokens } from '../train/micro-batch-tokens.js';
import { TroupeError } from '../util/errors.js';

export interface GrpoStepBenchOptions {
  readonly prompts: number;
  readonly k: number;
  readonly newTokens: number;
  readonly loraRank: number;
  readonly threads: number;
  readonly backend?: BackendName;
  /** Receives the progress lines (the command writes them to stderr). */
  readonly progress?: (line: string) => void;
  /** Least time between two progress lines of one phase (default 5 s). */
  readonly progressEveryMs?: number;
  /** Time every kernel call (CPU time) and return the rollout's and the update's time by part. */
  readonly profile?: boolean;
}

export interface GrpoStepBenchResult {
  readonly model: string;
  readonly backend: 'native' | 'wasm';
  readonly threads: number;
  readonly bf16_matmul: string;
  readonly base_dtype: string;
  readonly parameters: number;
  readonly prompts: number;
  readonly k: number;
  readonly new_tokens: number;
  readonly lora_rank: number;
  readonly prompt_tokens_mean: number;
  readonly load_s: number;
  readonly rollout_s: number;
  readonly update_s: number;
  /** rollout + reward + update: the GRPO step without loading the model. */
  readonly step_s: number;
  /** Sampled tokens per second of the rollout (P x K x N over rollout_s). */
  readonly rollout_tok_s: number;
  readonly micro_batches: number;
  readonly micro_batch_tokens: number;
  readonly old_logprobs: string;
  readonly logprob_gap_max: number;
  readonly logprob_gap_mean: number;
  readonly is_weight_mean: number | null;
  readonly loss: number;
  readonly grad_norm: number;
  readonly peak_rss_mb: number;
  readonly cpu: string;
  readonly load_start: number;
  readonly load_end: number;
  /** With `profile`: seconds and GFLOP/s by part (engine/kernels/profile-parts.ts) and the measured peak. */
  readonly profile?: { readonly peak_gflops: number; readonly rollout: readonly PartRow[]; readonly update: readonly PartRow[] };
}

/** The benchmark's prompts; bench/trl-grpo-step.py writes the same strings. */
export function grpoStepPrompts(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `Task ${i + 1}: a robot stands on a grid with walls. Explain, step by step, how it finds the shortest path to the goal.`);
}

/** The stand-in reward: the share of even token ids in the completion (bench/trl-grpo-step.py: the same). */
export function evenIdShare(ids: readonly number[]): number {
  return ids.length === 0 ? 0 : ids.filter((id) => id % 2 === 0).length / ids.length;
}

function checkSizes(options: GrpoStepBenchOptions): void {
  for (const [flag, value, max] of [['--prompts', options.prompts, 256], ['--k', options.k, 256], ['--tokens', options.newTokens, 4096], ['--lora-rank', options.loraRank, 1024]] as const) {
    if (!Number.isInteger(value) || value < 1 || value > max) throw new TroupeError('input', `${flag} must be a whole number from 1 to ${max}, got ${value}`);
  }
  if (options.k < 2) throw new TroupeError('input', `--k must be at least 2 (GRPO compares the completions of one prompt), got ${options.k}`);
}

/** Runs one GRPO step on `idOrFolder` and returns its timings. */
export async function benchGrpoStep(idOrFolder: string, options: GrpoStepBenchOptions): Promise<GrpoStepBenchResult> {
  checkSizes(options);
  const progress = options.progress ?? (() => {});
  const every = options.progressEveryMs ?? 5000;
  const loadStart = os.loadavg()[0]!;
  const folder = await resolveModel(idOrFolder);
  const backend = resolveBackend(options.backend ?? 'auto');
  const own = await createKernels({ backend, threads: options.threads });
  // Unprofiled runs use the kernels as they are: the instrumentation costs nothing when off.
  const profiled = options.profile ? profileKernels(own, 'cpu') : undefined;
  const kernels = profiled?.kernels ?? own;
  const cpuMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const mb = (): number => Math.round(process.resourceUsage().maxRSS / 1024);
  try {
    progress(`loading ${folder} (${backend} backend, ${kernels.threads} thread(s), bf16 products ${kernels.bf16Matmul})`);
    let t0 = performance.now();
    const { model, tokenizer } = loadModel(kernels, folder, { frozen: true });
    const load_s = (performance.now() - t0) / 1000;
    try {
      model.addAdapter('agent', { r: options.loraRank, alpha: 2 * options.loraRank, targetModules: LINEAR_MODULES }, 1);
      const logitMask = idsWithoutToken(tokenizer, model.config.vocab_size);
      const microBatchTokens = resolveMicroBatchTokens('auto', [model.config]);
      const learner = new Learner({
        policyId: 'agent',
        model,
        adapter: 'agent',
        logitMask,
        options: {
          loss: { kind: 'ppo-clip', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0, klEstimator: 'k3' },
          gradClip: 1,
          weightDecay: 0,
          microBatchTokens,
          logprobTolerance: 1e-3,
        },
      });
      progress(`loaded in ${load_s.toFixed(1)} s: ${(model.parameterCount() / 1e6).toFixed(0)}M parameters (${model.baseDtype} base), LoRA r${options.loraRank} on ${LINEAR_MODULES.length} projections; peak RSS ${mb()} MB`);

      const peak = profiled ? measurePeak(own) : undefined;
      const shapes = modelMatmuls(model.config, options.loraRank);
      profiled?.reset();
      let cpu0 = cpuMs();
      const promptIds = grpoStepPrompts(options.prompts).map((text) => tokenizer.encode(text));
      const total = options.prompts * options.k * options.newTokens;
      const sampler = new Sampler(model, tokenizer, { logitMask });
      let sampled = 0;
      let said = performance.now();
      t0 = performance.now();
      progress(`rollout: ${options.prompts} prompts x ${options.k} completions x ${options.newTokens} tokens (${total} tokens)`);
      const generations = sampler.generate(
        promptIds.map((ids, p) => ({ promptIds: ids, n: options.k, seed: p, maxTokens: options.newTokens, temperature: 1, topP: 1, topK: 0, stop: [], stopIds: [], adapter: 'agent' })),
        {
          onToken: () => {
            sampled++;
            const now = performance.now();
            if (now - said >= every) {
              said = now;
              progress(`rollout: ${sampled}/${total} tokens in ${((now - t0) / 1000).toFixed(0)} s (${(sampled / ((now - t0) / 1000)).toFixed(1)} tok/s)`);
            }
          },
        },
      );
      const rollout_s = (performance.now() - t0) / 1000;
      sampler.dispose();
      const rolloutParts = profiled ? profileParts(profiled.rows.values(), shapes, cpuMs() - cpu0) : [];
      profiled?.reset();
      cpu0 = cpuMs();
      progress(`rollout done in ${rollout_s.toFixed(1)} s (${(total / rollout_s).toFixed(1)} tok/s); peak RSS ${mb()} MB`);

      const sequences: TrainingSequence[] = generations.flatMap((row, p) => {
        const advantages = estimators.grpo(row.map((g) => evenIdShare(g.ids)));
        return row.map((g, i) => ({ promptIds: promptIds[p]!, responseIds: g.ids, oldLogprobs: g.logprobs, advantage: advantages[i]!, group: `p${p}` }));
      });
      const updateStart = performance.now();
      said = updateStart;
      progress(`update: ${sequences.length} sequences in micro-batches of up to ${microBatchTokens} tokens`);
      let microBatches = 0;
      const metrics = learner.update(sequences, 1e-5, (done, count) => {
        microBatches = count;
        const now = performance.now();
        if (now - said >= every || done === count) {
          said = now;
          progress(`update: micro-batch ${done}/${count} in ${((now - updateStart) / 1000).toFixed(0)} s`);
        }
      });
      const update_s = (performance.now() - updateStart) / 1000;
      const updateParts = profiled ? profileParts(profiled.rows.values(), shapes, cpuMs() - cpu0) : [];
      learner.dispose();
      progress(`update done in ${update_s.toFixed(1)} s; sampler/learner gap max ${metrics.max_logprob_gap.toExponential(2)}, mean ${metrics.mean_logprob_gap.toExponential(2)} (old log-probs: ${metrics.old_logprobs})`);
      const round = (x: number, digits: number): number => Number(x.toFixed(digits));
      return {
        model: idOrFolder,
        backend,
        threads: kernels.threads,
        bf16_matmul: kernels.bf16Matmul,
        base_dtype: model.baseDtype,
        parameters: model.parameterCount(),
        prompts: options.prompts,
        k: options.k,
        new_tokens: options.newTokens,
        lora_rank: options.loraRank,
        prompt_tokens_mean: round(promptIds.reduce((n, ids) => n + ids.length, 0) / promptIds.length, 1),
        load_s: round(load_s, 2),
        rollout_s: round(rollout_s, 3),
        update_s: round(update_s, 3),
        step_s: round((performance.now() - t0) / 1000, 3),
        rollout_tok_s: round(total / rollout_s, 1),
        micro_batches: microBatches,
        micro_batch_tokens: microBatchTokens,
        old_logprobs: metrics.old_logprobs,
        logprob_gap_max: metrics.max_logprob_gap,
        logprob_gap_mean: metrics.mean_logprob_gap,
        is_weight_mean: metrics.is_weight_mean ?? null,
        loss: metrics.loss,
        grad_norm: metrics.grad_norm,
        peak_rss_mb: mb(),
        cpu: os.cpus()[0]?.model ?? 'unknown',
        load_start: round(loadStart, 2),
        load_end: round(os.loadavg()[0]!, 2),
        ...(peak ? { profile: { peak_gflops: round(peak.gflops, 1), rollout: rolloutParts, update: updateParts } } : {}),
      };
    } finally {
      model.dispose();
    }
  } finally {
    await (own as { dispose?: () => Promise<void> }).dispose?.();
  }
}
